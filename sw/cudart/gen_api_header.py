#!/usr/bin/env python3
"""Rewrites the declaration list of sw/cudart/cudart_api.h or sw/cuda/cuda_api.h from the
definitions (CUDART_EXPORT / CU_EXPORT) in that library's sources, keeping the header's text
around the generated block. The library's sources include the header, so the compiler then checks
every definition against its declaration.

Usage (from sw/): gen_api_header.py cudart|cuda
"""
import re
import sys

which = sys.argv[1]
if which == 'cudart':
    header = 'cudart/cudart_api.h'
    groups = [('cudart/cudart_error.cc', 'errors'),
              ('cudart/cudart_register.cc', 'registration (nvcc-generated code), launches, kernels'),
              ('cudart/cudart_device.cc', 'devices'), ('cudart/cudart_memory.cc', 'memory'),
              ('cudart/cudart_stream.cc', 'streams and events'),
              ('cudart/cudart_texture.cc', 'arrays, textures, surfaces'),
              ('cudart/cudart_graph.cc', 'graphs and stream capture')]
    macro = 'CUDART_EXPORT'
else:
    header = 'cuda/cuda_api.h'
    groups = [('cuda/cuda_api.cc', 'driver API'), ('cuda/cuda_entry.cc', 'entry points by name'),
              ('cuda/cuda_private_tables.cc', 'private tables of the runtime'),
              ('cuda/cuda_library.cc', 'libraries and kernels'),
              ('cuda/cuda_texture.cc', 'arrays, copies with arrays, texture and surface objects'),
              ('cuda/cuda_graph.cc', 'graphs and stream capture')]
    macro = 'CU_EXPORT'


def wrap(line):
    if len(line) <= 100:
        return line
    i = line.index('(')
    parts = line[i + 1:].split(', ')
    cur, lines = line[:i + 1], []
    for k, p in enumerate(parts):
        piece = p + (', ' if k < len(parts) - 1 else '')
        if len(cur) + len(piece.rstrip()) > 100:
            lines.append(cur.rstrip())
            cur = ' ' * 4 + piece
        else:
            cur += piece
    lines.append(cur.rstrip())
    return '\n'.join(lines)


out = []
for path, title in groups:
    text = open(path).read()
    out.append('\n/* ---- %s %s */' % (title, '-' * (90 - len(title))))
    for m in re.finditer(r'^' + macro + r'\s+(.*?)\)\s*\{', text, re.S | re.M):
        out.append(wrap(' '.join(m.group(1).split()) + ');'))
begin, end = '/* BEGIN GENERATED DECLARATIONS */', '/* END GENERATED DECLARATIONS */'
h = open(header).read()
a, b = h.index(begin) + len(begin), h.index(end)
h = h[:a] + '\n'.join(out) + '\n\n' + h[b:]
open(header, 'w').write(h)
print('%s: %d declarations' % (header, sum(1 for l in out if l.endswith(';') or l.endswith(');'))))
