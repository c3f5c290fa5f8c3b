" PipeLink recipes and component contracts.
autocmd BufRead,BufNewFile *.plk setfiletype plk
