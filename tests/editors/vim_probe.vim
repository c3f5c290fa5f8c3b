" Batch driver for tests/scripts/editors_vim.sh:
"   vim -Es -u NONE -N -i NONE --cmd 'set rtp^=editors/vim' \
"       --cmd 'let g:probes = "probes.tsv" | let g:out = "got.tsv"' -S tests/editors/vim_probe.vim
" For each probe `file<TAB>line<TAB>col<TAB>...` writes the probe with the
" syntax group found there appended; then the filetype, indentation and
" quickfix checks as `check<TAB>name<TAB>got`.
filetype plugin indent on
syntax on
let s:out = []
let s:cur = ''
for s:row in readfile(g:probes)
  let s:f = split(s:row, "\t", 1)
  if s:f[0] !=# s:cur
    execute 'silent edit! ' . fnameescape(s:f[0])
    let s:cur = s:f[0]
  endif
  call add(s:out, s:row . "\t" . synIDattr(synID(str2nr(s:f[1]), str2nr(s:f[2]), 1), 'name'))
endfor

" Filetype and buffer settings of a .plk file.
execute 'silent edit! ' . fnameescape(g:indent_src)
call add(s:out, "check\tfiletype\t" . &filetype)
call add(s:out, "check\tcommentstring\t" . &commentstring)
" Reindent the whole file: must reproduce it (it is indented by hand).
let s:before = getline(1, '$')
silent normal! gg=G
call add(s:out, "check\treindent\t" . (getline(1, '$') ==# s:before ? 'same' : 'changed: ' . join(getline(1, '$'), '|')))

" Quickfix: plkc --diagnostics-format=short lines.
compiler plkc
" (:make reads its output with the buffer's 'errorformat', as :cgetfile does.)
let s:qf_in = tempname()
call writefile(['tests/editors/samples/sample_gemm.plk:8:13: error[E0301]: unknown arch `sm_91`',
      \ '   |', 'sample_lexical.plk:2:1: warning[W0001]: unused component'], s:qf_in)
execute 'cgetfile ' . fnameescape(s:qf_in)
let s:qf = []
for s:e in getqflist()
  if s:e.valid
    call add(s:qf, bufname(s:e.bufnr) . ':' . s:e.lnum . ':' . s:e.col . ':' . s:e.type . ':' . s:e.text)
  endif
endfor
call add(s:out, "check\tquickfix\t" . join(s:qf, '|'))

" End to end, when the test runner has a plkc: :make on a broken file.
if exists('g:plkc')
  execute 'silent edit! ' . fnameescape(g:bad)
  compiler plkc
  let &l:makeprg = g:plkc . ' --diagnostics-format=short $* %:S'
  let &shellpipe = '>%s 2>&1'
  silent make
  let s:qf = []
  for s:e in getqflist()
    if s:e.valid
      call add(s:qf, s:e.lnum . ':' . s:e.col . ':' . s:e.type . ':' . matchstr(s:e.text, '^\[E\d\+\]'))
    endif
  endfor
  call add(s:out, "check\tmake\t" . join(s:qf, '|'))
endif
call writefile(s:out, g:out)
qa!
