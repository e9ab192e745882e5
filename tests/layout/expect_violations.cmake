# layout.fixture: check_layers.cmake must fail on the made-up tree in
# fixture/, naming each of its three violations.
execute_process(
  COMMAND ${CMAKE_COMMAND} -DLAYERS=${FIXTURE}/LAYERS -DNM=${NM} "-DOBJ_low=${OBJ_low}"
          "-DOBJ_high=${OBJ_high}" -P ${CHECKER}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(rc EQUAL 0)
  message(FATAL_ERROR "layout.fixture: the checker passed a tree with violations")
endif()
foreach(expected
    "low/c.c: #include \"high.h\" goes to high/, which low/ may not use"
    "high/b.c: #include \"low_int.h\" is private to low/"
    "low/: calls or uses high_fn, defined in high/, which low/ may not use"
    "3 violation")
  string(FIND "${all}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "layout.fixture: the checker did not say: ${expected}")
  endif()
endforeach()
