" Vim indent file for PipeLink (.plk): one level per open { ( [.
if exists("b:did_indent")
  finish
endif
let b:did_indent = 1

setlocal indentexpr=PlkIndent(v:lnum)
setlocal indentkeys=0},0),0],!^F,o,O
setlocal autoindent
let b:undo_indent = "setlocal indentexpr< indentkeys< autoindent<"

if exists("*PlkIndent")
  finish
endif

" The line without strings and comments (block comments are taken to close
" on the line they open, as they do in practice).
function! s:Code(lnum) abort
  let l = getline(a:lnum)
  let l = substitute(l, '"\%(\\.\|[^"\\]\)*"', '""', 'g')
  let l = substitute(l, '/\*.\{-}\*/', '', 'g')
  return substitute(l, '//.*$\|/\*.*$', '', '')
endfunction

function! PlkIndent(lnum) abort
  let prev = prevnonblank(a:lnum - 1)
  if prev == 0
    return 0
  endif
  " Skip lines inside a block comment.
  if synIDattr(synID(a:lnum, 1, 1), "name") ==# "plkComment" && getline(a:lnum) !~# '^\s*/\*'
    return -1
  endif
  " Leading closers were paid for by the previous line's own indent.
  let code = substitute(s:Code(prev), '^\s*[})\]]*', '', '')
  let net = len(substitute(code, '[^{([]', '', 'g')) - len(substitute(code, '[^})\]]', '', 'g'))
  let ind = indent(prev) + (net > 0 ? shiftwidth() : net < 0 ? -shiftwidth() : 0)
  if getline(a:lnum) =~# '^\s*[})\]]'
    let ind -= shiftwidth()
  endif
  return ind < 0 ? 0 : ind
endfunction
