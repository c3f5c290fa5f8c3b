" Vim compiler file for plkc, the PipeLink linker: `:compiler plkc`, then
" `:make` checks the current file (set b:plkc_args, e.g. '-arch sm_90a').
if exists("current_compiler")
  finish
endif
let current_compiler = "plkc"

if exists(":CompilerSet") != 2
  command -nargs=* CompilerSet setlocal <args>
endif

CompilerSet makeprg=plkc\ --diagnostics-format=short\ $*\ %:S
" file:line:col: error[E0101]: message, and warning/note lines: the type is
" the first letter; the message keeps the error code.
CompilerSet errorformat=%f:%l:%c:\ %t%*[a-z]%m,%-G%.%#
