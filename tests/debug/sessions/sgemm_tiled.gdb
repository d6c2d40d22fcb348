# The tiled SGEMM of the committed tests/kernels/bin/sgemm (`sgemm 64 64 64`): launch 2 is
# sgemm_tiled; PTX line 225 is the first shared-memory load after the barrier. Breakpoint 2 is on
# thread (0,0,0) only: a `step` lets the other warps issue too, and a breakpoint they hit would stop first.
break kernel 2
continue
break 225 cta 1,1,0 thread 0,0,0
continue
info warps
x/4fw shared 0
x/4fw shared 1024
print %f14
step
print %f14
where
delete
continue
