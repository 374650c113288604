/* What the porting layer needs of the start-up (tm_start.c). */
#ifndef TM_START_H
#define TM_START_H

/* Called first in every Thread-Metric task: the kernel has started. */
void tm_port_thread_started(void);

#endif
