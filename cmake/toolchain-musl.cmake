# The probe linked statically against musl (Debian's musl-tools).
set(CMAKE_C_COMPILER musl-gcc)
set(RTG_STATIC ON CACHE BOOL "" FORCE)
