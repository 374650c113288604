# The probe linked statically against musl (Debian's musl-tools).
set(CMAKE_C_COMPILER musl-gcc)
set(RTG_STATIC ON CACHE BOOL "" FORCE)
# musl-gcc wraps the system gcc: its gcc-ar and gcc-ranlib read the
# link-time optimised objects of a static build (CMakeLists.txt).
find_program(CMAKE_C_COMPILER_AR NAMES gcc-ar)
find_program(CMAKE_C_COMPILER_RANLIB NAMES gcc-ranlib)
