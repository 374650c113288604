/* A minimal assertion kit for the C unit tests: each test file is one
 * executable; a failed check prints where and makes main return 1. */
#ifndef RTG_UNIT_H
#define RTG_UNIT_H
#include <stdio.h>
#include <string.h>

static int unit_failures;
static int unit_checks;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        unit_checks++;                                                                  \
        if (!(cond)) {                                                                  \
            unit_failures++;                                                            \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);    \
        }                                                                               \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                \
    do {                                                                                \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);  \
        unit_checks++;                                                                  \
        if (a_ != b_) {                                                                 \
            unit_failures++;                                                            \
            fprintf(stderr, "%s:%d: %s == %llu, expected %llu\n", __FILE__, __LINE__, #a, \
                    a_, b_);                                                            \
        }                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                           \
    do {                                                                                \
        double a_ = (a), b_ = (b);                                                      \
        unit_checks++;                                                                  \
        if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps))) {                                  \
            unit_failures++;                                                            \
            fprintf(stderr, "%s:%d: %s == %.9g, expected %.9g\n", __FILE__, __LINE__, #a, \
                    a_, b_);                                                            \
        }                                                                               \
    } while (0)

#define CHECK_STR(a, b)                                                                 \
    do {                                                                                \
        const char *a_ = (a), *b_ = (b);                                                \
        unit_checks++;                                                                  \
        if (!a_ || strcmp(a_, b_) != 0) {                                               \
            unit_failures++;                                                            \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
                    #a, a_ ? a_ : "(null)", b_);                                        \
        }                                                                               \
    } while (0)

static inline int unit_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}

#endif
