# The probe linked statically against musl (Debian's musl-tools).
set(CMAKE_C_COMPILER musl-gcc)
set(RTG_STATIC ON CACHE BOOL "" FORCE)
# musl-gcc wraps the system gcc: its gcc-ar and gcc-ranlib read the
# link-time optimised objects of a static build (CMakeLists.txt).
find_program(CMAKE_C_COMPILER_AR NAMES gcc-ar)
find_program(CMAKE_C_COMPILER_RANLIB NAMES gcc-ranlib)
# A static build's extra link options (CMakeLists.txt). musl applies no
# RELRO in a static executable (only its dynamic linker does), so its
# segment would only page-align the writable data in the file: up to 4 KiB
# of padding. Without it, and with ld's page-saving placement of the data
# reckoned in 64-byte rather than 4 KiB pages, the data follow the
# constants directly in the file.
set(RTG_STATIC_LINK_OPTIONS -Wl,-z,norelro -Wl,-z,common-page-size=64)
