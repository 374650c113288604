/* The leaf threads' stack (RTG_TEST_STACK_LEAF, common/catalogue.h) holds
 * what such a thread does, with room to spare: a thread created through the
 * OSAL with that size waits on a semaphore, stamps the clock, yields,
 * posts, and handles a signal on its own stack (the stop request's path).
 * Its stack is painted first; the deepest byte it touched gives what it
 * used. Must hold: a quarter of the stack left untouched (glibc, x86-64
 * with AVX-512 signal frames: 7.9 KiB of 16 used, the thread's descriptor
 * and TLS at its top included; less where signal frames are smaller).
 * Sanitizer builds run the thread but do not judge the room: their frames
 * are not the shipped probe's. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "common/catalogue.h"
#include "rtg/clock.h"
#include "rtg/osal.h"
#include "unit.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define PAINT 0xa5

struct leaf {
    rtg_sem_t go, done;
    size_t used, size;
    int rounds;
};

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
    (void)sig;
    handled = 1;
}

__attribute__((noinline, no_sanitize_address)) static void paint(unsigned char *lo,
                                                                 unsigned char *hi)
{
    for (volatile unsigned char *p = lo; p < hi; p++)
        *p = PAINT;
}

__attribute__((noinline, no_sanitize_address)) static size_t deepest(unsigned char *lo,
                                                                     unsigned char *top)
{
    volatile unsigned char *p = lo;
    while (p < top && *p == PAINT)
        p++;
    return (size_t)(top - (unsigned char *)p);
}

/* What a leaf thread of THR-P-SLS, SEM-P-ARC or BAR-P-LAT does. */
__attribute__((noinline)) static void leaf_work(struct leaf *l)
{
    if (rtg_sem_wait_until(&l->go, rtg_mono_ns() + 5000000000ull))
        return;
    for (int r = 0; r < 1000; r++) {
        volatile uint64_t t = rtg_clock_ticks();
        (void)t;
        rtg_thread_yield();
        if (r == 500)
            pthread_kill(pthread_self(), SIGUSR1);
    }
    l->rounds = 1000;
}

static void *leaf_main(void *arg)
{
    struct leaf *l = arg;
    void *addr = NULL;
    size_t size = 0;
#ifdef __linux__ /* where a thread can read its own stack's place (glibc, musl) */
    pthread_attr_t a;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        pthread_attr_getstack(&a, &addr, &size);
        pthread_attr_destroy(&a);
    }
#endif
    unsigned char here;
    unsigned char *lo = addr, *top = lo + size;
    if (addr)
        paint(lo, (unsigned char *)((uintptr_t)&here - 1024)); /* below this frame and paint's */
    leaf_work(l);
    if (addr) {
        l->size = size;
        l->used = deepest(lo, top);
    }
    rtg_sem_post(&l->done);
    return NULL;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    struct leaf l = {0};
    CHECK_EQ_U(rtg_sem_init(&l.go, 0), 0);
    CHECK_EQ_U(rtg_sem_init(&l.done, 0), 0);
    struct rtg_thread_attr at = {.policy = RTG_SCHED_OTHER, .cpu = -1,
                                 .stack_size = RTG_TEST_STACK_LEAF};
    rtg_thread_t t;
    int rc = rtg_thread_create(&t, &at, leaf_main, &l);
    CHECK_EQ_U(rc, 0);
    if (!rc) {
        rtg_sem_post(&l.go);
        CHECK_EQ_U(rtg_sem_wait_until(&l.done, rtg_mono_ns() + 10000000000ull), 0);
        rtg_thread_join(t, NULL);
    }
    CHECK_EQ_U(l.rounds, 1000);
    CHECK(handled);
#ifdef __linux__
    CHECK(l.size >= RTG_TEST_STACK_LEAF / 2); /* the C library's accounting aside */
    CHECK(l.used > 0);
    printf("leaf stack: %zu of %zu bytes used%s\n", l.used, l.size,
           SANITIZED ? " (sanitizer build: not judged)" : "");
    if (!SANITIZED)
        CHECK(l.used <= RTG_TEST_STACK_LEAF / 4 * 3);
#endif
    rtg_sem_destroy(&l.go);
    rtg_sem_destroy(&l.done);
    return unit_report("leaf_stack");
}
