/* Build facts, set by CMake, and the result schema's version. */
#ifndef RTG_VERSION_H
#define RTG_VERSION_H
#ifndef RTG_VERSION
#error "RTG_VERSION is set by the build from the top-level VERSION file"
#endif
/* The version of the result format (schema/result-v1.json): every record
 * that carries "schema_version" writes this one constant. */
#define RTG_SCHEMA_VERSION 1
#ifndef RTG_STATIC_BUILD
#define RTG_STATIC_BUILD 0
#endif
#ifndef RTG_TEST_HOOKS
#define RTG_TEST_HOOKS 0
#endif
#if defined(__x86_64__)
#define RTG_ARCH "x86_64"
#elif defined(__aarch64__)
#define RTG_ARCH "aarch64"
#elif defined(__arm__)
#define RTG_ARCH "arm"
#else
#define RTG_ARCH "unknown"
#endif
#endif
