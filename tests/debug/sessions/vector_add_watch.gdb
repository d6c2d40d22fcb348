# Kernel breakpoint, stepping, registers and a watchpoint on the committed tests/kernels/bin/vector_add
# (`vector_add 1024`: 4 CTAs of 128 threads, c = a + b).
break kernel vector_add
continue
info kernels
step 8
info registers %r1 %r6 %rd6
print %r10[*]
info stack
watch/f $param2+4*1000
continue
print %tid
print $pc
x/2fw $param0+4*1000
x/2fw $param1+4*1000
info breakpoints
continue
