# Turns text files into a C source defining one NUL-terminated char array.
# Usage: cmake -DINPUT=file[|file...] -DOUTPUT=file.c -DSYMBOL=name -P EmbedFile.cmake
# Several inputs are joined in order, each after a `#line 1 "name"`, so a
# compiler's messages name the part and its own line.
string(REPLACE "|" ";" inputs "${INPUT}")
list(LENGTH inputs count)
set(hex "")
set(names "")
foreach(input ${inputs})
  get_filename_component(name "${input}" NAME)
  list(APPEND names ${name})
  if(count GREATER 1)
    file(WRITE "${OUTPUT}.line" "#line 1 \"${name}\"\n")
    file(READ "${OUTPUT}.line" line HEX)
    string(APPEND hex "${line}")
  endif()
  file(READ "${input}" part HEX)
  string(APPEND hex "${part}")
endforeach()
file(REMOVE "${OUTPUT}.line")
string(REPLACE ";" ", " names "${names}")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${names} by cmake/EmbedFile.cmake; do not edit. */\n"
  "const char ${SYMBOL}[] = {\n    ${bytes}0x00};\n")
# copy_if_different: file(COPY_FILE) needs CMake 3.21.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
