/* A janitor: a process that removes what this one created (IPC objects, a
 * scratch directory) however this one ends. It runs in its own session,
 * so a kill of the probe's process group misses it, and reads notes from
 * a pipe whose write end only the process that started it (and the
 * processes that one forks afterwards) hold; at end of file -- a normal
 * end, a crash or a SIGKILL alike -- it cleans up and exits. Used by the
 * System V message queues (msg_sysv.c) and the load generators' scratch
 * directories (core/osal/linux/load.c). */
#ifndef RTG_PX_JANITOR_H
#define RTG_PX_JANITOR_H
#include <stdbool.h>
#include <stddef.h>

/* What the janitor does; its functions run in the janitor process, on its
 * own copy of *state (taken when it is forked). */
struct rtg_px_janitor_job {
    size_t note_size;                            /* bytes of a note; 0: none */
    void (*note)(void *state, const void *note); /* per note, as it arrives */
    void (*cleanup)(void *state);                /* at end of file, once */
    void *state;
    /* Optional: creates the object in the janitor, once it is in its own
     * session, so no kill of the caller's group can fall between the
     * object's creation and its janitor. Returns 0 or an errno; on 0 the
     * first reply_size bytes of the janitor's *state are copied back to
     * the caller's *state before rtg_px_janitor_start returns. */
    int (*create)(void *state);
    size_t reply_size;
};

struct rtg_px_janitor {
    int fd;     /* the pipe's write end; -1 when none was started */
    long owner; /* the process that started it */
    long pid;   /* the janitor, when it is the owner's child; 0 when detached */
};

/* Starts a janitor for job. detached: re-parented at once (it leaves no
 * child to reap); otherwise the caller's child, reaped by
 * rtg_px_janitor_release. Returns 0 or an errno (then nothing runs: a
 * SIGKILL of the caller may leave its objects behind; with job->create,
 * nothing was created). */
int rtg_px_janitor_start(struct rtg_px_janitor *j, const struct rtg_px_janitor_job *job,
                         bool detached);
/* Sends a note of job->note_size bytes (at most PIPE_BUF: written whole). */
void rtg_px_janitor_tell(const struct rtg_px_janitor *j, const void *note, size_t size);
/* Closes the write end: the janitor cleans up and exits once no other
 * process holds it. A child janitor is then reaped, waiting at most
 * wait_ms (it ends as soon as the last holder, e.g. a load process, is
 * gone). */
void rtg_px_janitor_release(struct rtg_px_janitor *j, int wait_ms);
/* Reads or writes all of n bytes, again after EINTR; false on an error or
 * an early end. */
bool rtg_px_io_all(int fd, void *buf, size_t n, bool writing);

#endif
