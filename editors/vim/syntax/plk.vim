" Vim syntax file
" Language: PipeLink (.plk), see docs/language.md
" The name lists between the GENERATED markers come from grammar/lexer.re and
" stdlib/*.def: regenerate them with `python3 tests/editors/plkref.py sync`.

if exists("b:current_syntax")
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syn case match
syn iskeyword @,48-57,_

" Stdlib names are identifiers to the lexer: matches, not keywords, so that a
" port or instance that happens to share a name still reads as one.
" BEGIN GENERATED
syn keyword plkInclude object use
syn keyword plkDecl const
syn keyword plkDecl component nextgroup=plkCompName skipwhite
syn keyword plkDecl kernel nextgroup=plkKernelName skipwhite
syn keyword plkDecl select nextgroup=plkKernelName skipwhite
syn keyword plkKeyword ahead align arch barrier buffer bytes cluster early else engine entry for grid handoff hook in live megakernel merge needs op out param per prologue raster regs require smem source split warpgroups warps when zeroed
syn keyword plkTypeKeyword frag ptr tensor tensormap tile
syn keyword plkShapeOp x
syn keyword plkAuto auto
syn match plkDtype /\<\%(bf16\|e2m1\|e4m3\|e5m2\|f16\|f32\|f64\|i16\|i32\|i64\|i8\|tf32\|u32\|u64\|u8\)\>/
syn match plkLayout /\<\%(mma_a\|mma_acc\|mma_b\|none\|sw128\|sw32\|sw64\|wgmma_a\|wgmma_acc\)\>/
syn match plkFeature /\<\%(clusters\|cp_async\|mma_sync\|setmaxnreg\|tcgen05\|tma\|tmem\|wgmma\)\>/
" END GENERATED

syn match plkArch /\<sm_\d\+a\=\>/

syn match plkBadNumber /\<\d\w*/
syn match plkNumber /\<\d[0-9_]*\%(KiB\|MiB\|K\|M\)\=\>/ contains=plkUnit
syn match plkNumber /\<0[xX][0-9A-Fa-f_]\+\>/
syn match plkNumber /\<0[bB][01_]\+\>/
syn match plkUnit /\%(KiB\|MiB\|K\|M\)\>/ contained

syn match plkOperator /[-+*/%=]\|[<>=!]=/
syn match plkArrow /->/

" Declarations and instances.
syn match plkCompName /\h\w*/ contained
syn match plkKernelName /\h\w*/ contained
syn match plkInstanceDef /^\s*\zs\h\w*\ze\s*=\s*\h\w*\s*(/ nextgroup=plkInstanceEq skipwhite
syn match plkInstanceEq /=/ contained nextgroup=plkCompRef skipwhite
syn match plkCompRef /\h\w*/ contained

" A port of an instance in a connection: load.ab -> mma.ab
syn match plkInstance /\<\h\w*\ze\s*\.\s*\h/ nextgroup=plkDot skipwhite
syn match plkDot /\./ contained nextgroup=plkPort skipwhite
syn match plkPort /\h\w*/ contained

syn region plkString start=/"/ skip=/\\\\\|\\"/ end=/"/ end=/$/ oneline contains=plkEscape,plkBadEscape
syn match plkBadEscape /\\./ contained
syn match plkEscape /\\["\\nt]/ contained

syn keyword plkTodo TODO FIXME XXX NOTE contained
syn region plkComment start=+//+ end=/$/ contains=plkTodo,@Spell
syn region plkComment start=+/\*+ end=+\*/+ contains=plkTodo,@Spell fold

syn sync ccomment plkComment minlines=50

hi def link plkInclude     Include
hi def link plkDecl        Structure
hi def link plkKeyword     Keyword
hi def link plkTypeKeyword Type
hi def link plkShapeOp     Operator
hi def link plkAuto        Constant
hi def link plkDtype       Type
hi def link plkLayout      Type
hi def link plkFeature     Constant
hi def link plkArch        Constant
hi def link plkNumber      Number
hi def link plkUnit        Number
hi def link plkBadNumber   Error
hi def link plkOperator    Operator
hi def link plkArrow       Operator
hi def link plkCompName    Function
hi def link plkKernelName  Function
hi def link plkCompRef     Type
hi def link plkInstanceDef Identifier
hi def link plkInstance    Identifier
hi def link plkPort        Special
hi def link plkString      String
hi def link plkEscape      SpecialChar
hi def link plkBadEscape   Error
hi def link plkTodo        Todo
hi def link plkComment     Comment

let b:current_syntax = "plk"

let &cpo = s:cpo_save
unlet s:cpo_save
