/*
 * metrics.h - a capture's Prometheus metrics while it runs and at its end:
 * --prom-textfile's file, rewritten whole (a temporary file in the same
 * directory, then renamed: node_exporter's textfile collector never reads
 * half a file) at the start, at each -I interval and at the end; and
 * --listen's /metrics (lib/report/prom_http), rendered when a scraper
 * asks, between two drains, from the counts the drains left.
 *
 * Only lib/capture/capture calls these: open before arming (a wrong
 * address or directory costs no capture), start once the clock starts,
 * tick and serve from its loop, end after disarming, close always.
 */
#ifndef OT_METRICS_H
#define OT_METRICS_H

struct ot_capture;

/* The server listening and the file's directory writable: 0, or -1 after
 * printing why. */
int ot_metrics_open(struct ot_capture *c);

/* The capture's clock started: the first metrics written and published. */
void ot_metrics_start(struct ot_capture *c);

/* Readable when a scraper waits (-1: no --listen). */
int ot_metrics_fd(const struct ot_capture *c);

/* After a drain: a waiting scraper served (its fd was readable). */
void ot_metrics_serve(struct ot_capture *c);

/* An -I interval ended: the file rewritten. */
void ot_metrics_tick(struct ot_capture *c);

/* The capture is over, reported and disarmed: the final metrics written
 * and served, the server stopped.  0, or -1 when the file could not be
 * written (printed). */
int ot_metrics_end(struct ot_capture *c);

void ot_metrics_close(struct ot_capture *c);

#endif
