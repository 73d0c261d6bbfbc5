# cmake -DBUILD=<Braid's build folder> -DSOURCE=<this folder> -DWORK=<scratch> -P check_install.cmake
# Installs Braid into WORK/prefix, builds the consumer project against it with find_package(Braid),
# runs it (it must print 24) and the installed braid command.
file(REMOVE_RECURSE ${WORK})
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(failed)
    message(FATAL_ERROR "${what} failed (${failed}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
run("configuring the consumer" ${CMAKE_COMMAND} -S ${SOURCE}/consumer -B ${WORK}/consumer -G Ninja
    -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK}/consumer)
run("running the consumer" ${WORK}/consumer/consumer)
if(NOT out STREQUAL "24\n")
  message(FATAL_ERROR "the consumer printed '${out}', not 24")
endif()
run("the installed braid --version" ${WORK}/prefix/bin/braid --version)
if(NOT out MATCHES "^braid ")
  message(FATAL_ERROR "the installed braid --version printed '${out}'")
endif()
message(STATUS "find_package(Braid) against ${WORK}/prefix: built and ran")
