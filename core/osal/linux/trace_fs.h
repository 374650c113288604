/* tracefs for the flight recorder: where it is (mounted when it is not),
 * the recorder's own instances, and the janitor that removes the instances
 * of a probe that died. Never the top-level buffer, never another tool's
 * instance: every write goes under instances/rtgauge-<pid>-<n>/. */
#ifndef RTG_TRACE_FS_H
#define RTG_TRACE_FS_H
#include <stdbool.h>
#include <stddef.h>

#define RTG_TRACEFS_PATH 160
/* The instance name prefix: "rtgauge-<pid>-<n>". */
#define RTG_TRACE_INSTANCE_PREFIX "rtgauge-"

struct rtg_tracefs {
    char root[RTG_TRACEFS_PATH];
    bool mounted_here; /* this process mounted it: unmount at the end */
};
/* Finds tracefs or mounts it; 0, or an errno with why filled. */
int rtg_tracefs_open(struct rtg_tracefs *fs, char *why, size_t n);
/* Unmounts it if this process mounted it and no instance is left in it. */
void rtg_tracefs_close(struct rtg_tracefs *fs);

/* Writes s into the file at path (relative to dir); 0 or an errno. */
int rtg_tracefs_write(const char *dir, const char *file, const char *s);
/* Reads the file into buf (NUL-terminated); its length, or -1. */
long rtg_tracefs_read(const char *dir, const char *file, char *buf, size_t n);

/* Creates instances/rtgauge-<pid>-<index> with recording off; its path. */
int rtg_tracefs_instance_new(const struct rtg_tracefs *fs, int index, char *path, size_t n);
/* Stops and removes an instance; 0 or an errno. */
int rtg_tracefs_instance_remove(const char *path);
/* Removes every rtgauge-<pid>-* instance whose process is gone, and makes
 * the tracefs mount such a process made this one's (unmounted at close). */
void rtg_tracefs_janitor(struct rtg_tracefs *fs);

#endif
