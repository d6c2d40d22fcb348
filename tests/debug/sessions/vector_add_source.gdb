# A source-level session on vector_add built with -lineinfo (tests/debug/bin/vector_add_lineinfo,
# run as `vector_add_lineinfo 1024` from tests/kernels so the debugger finds vector_add.cu there).
break vector_add.cu:7 cta 2,0,0 thread 5,0,0
continue
where
list
print %r10
print %tid
info params
step 4
print %f1
watch/f $param2+4*300
delete 1
continue
x/4fw $param2+4*299
info ctas
continue
