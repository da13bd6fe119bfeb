/*
 * prom_http.h - --listen: the metrics served over HTTP at /metrics while
 * a capture runs, by libmicrohttpd's threads (a thread per connection).
 *
 * The capture's thread never waits for a scraper.  A scrape asks for
 * fresh metrics through a file descriptor the capture polls
 * (ot_prom_http_fd), waits up to a second for ot_prom_http_publish, and
 * is answered with what was published last (fresh, or the last there is
 * when the capture is busy ending): text 0.0.4, or OpenMetrics 1.0 when
 * its Accept header asks for it first (lib/report/prom).  Paths other
 * than / and /metrics get 404, methods other than GET and HEAD 405.
 *
 * What a client may hold is bounded, so that slow or idle ones cannot
 * lock the scrapers out: 64 connections, 4 per client address (more are
 * closed at once), 5 s idle, and 10 s per request from its connection (or
 * its previous answer) to the end of its answer; a thread of ours shuts
 * down a connection past that deadline.  An address that is not loopback
 * is warned of: there is no authentication.
 *
 * Signals stay with the capture's thread: the server's threads start with
 * every signal blocked.  Nothing here exits; errors are printed once.
 */
#ifndef OT_PROM_HTTP_H
#define OT_PROM_HTTP_H

#include <stddef.h>

struct ot_prom_http;

/*
 * addr ("HOST:PORT", "[IPV6]:PORT", ":PORT", "PORT") into host (127.0.0.1
 * when none is named, without brackets) and port (digits, 0..65535).
 * 0, or -EINVAL.  Prints nothing: --listen's syntax is checked with the
 * options.
 */
int ot_prom_http_parse(const char *addr, char *host, size_t hlen, char *port, size_t plen);

/*
 * Listen on addr: "HOST:PORT", "[IPV6]:PORT", or ":PORT" / "PORT" for
 * 127.0.0.1 (loopback unless a host is named; a warning if not); PORT 0
 * picks a free one.  Returns 0 and *out, or -errno after printing why
 * (the address named).
 */
int ot_prom_http_start(const char *addr, struct ot_prom_http **out);

/* The address served, as a URL: "http://127.0.0.1:9435/metrics". */
const char *ot_prom_http_url(const struct ot_prom_http *h);

/* Readable when a scrape waits for fresh metrics. */
int ot_prom_http_fd(const struct ot_prom_http *h);

/* Reads the wake-up: 1 when a scrape waits (publish now), else 0. */
int ot_prom_http_wanted(struct ot_prom_http *h);

/* Fresh metrics in both formats (malloc'd, taken), and the scrapes that
 * wait for them answered. */
void ot_prom_http_publish(struct ot_prom_http *h, char *text, size_t text_len, char *om,
			  size_t om_len);

/* Every connection closed and the threads joined; h freed (NULL: nothing). */
void ot_prom_http_stop(struct ot_prom_http *h);

#endif
