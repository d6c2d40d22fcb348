# embed_text.cmake — a text file as a C string `const char NAME[]`, every byte written as a \x
# escape so that any content is safe. Used for the report's script and style sheet.
#   cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -P embed_text.cmake
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
file(WRITE ${OUT} "/* generated from ${IN} by report/embed_text.cmake */\nconst char ${NAME}[] = \"${escaped}\";\n")
