/* prom_http.c - /metrics over HTTP with libmicrohttpd (prom_http.h). */
#include "prom_http.h"
#include "prom.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* How long a scrape waits for the capture's fresh metrics. */
#define WAIT_NS 1000000000ull

/*
 * What a client may hold (prom_http.h): connections at once, and from one
 * address; how long a connection may sit idle; how long a request may
 * take, from the connection (or its previous answer) to the end of its
 * answer - Prometheus' own default scrape timeout.
 */
#define MAX_CONNECTIONS 64u
#define MAX_PER_ADDRESS 4u
#define IDLE_SECONDS 5u
#define REQUEST_NS 10000000000ull

/* A connection, as the deadline's thread sees it. */
struct conn {
	struct conn *next;
	int fd;			/* a dup of its socket: shut down when it is late */
	uint64_t due;		/* its request's deadline (CLOCK_MONOTONIC ns); 0: cut */
};

struct ot_prom_http {
	struct MHD_Daemon *d;
	/* The connections, under lock; the deadline's thread waits on due. */
	struct conn *conns;
	pthread_cond_t due;
	pthread_t reaper;
	int reaper_started, stopping;
	int efd;			/* a scrape waits: the capture polls it */
	pthread_mutex_t lock;
	pthread_cond_t fresh;		/* published */
	uint64_t gen;			/* publications so far */
	char *text, *om;		/* the last published, or NULL */
	size_t text_len, om_len;
	char url[96];
};

static void deadline(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)(WAIT_NS / 1000000000u);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The deadline of each request, which libmicrohttpd has no option for
 * (its timeout is an idle one: a byte every few seconds keeps a slow
 * client forever).  A late connection's socket is shut down: its thread
 * wakes, and libmicrohttpd closes it.
 */
static void *reaper(void *arg)
{
	struct ot_prom_http *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		uint64_t now = mono_ns(), next = UINT64_MAX;
		struct timespec ts;
		struct conn *c;

		for (c = h->conns; c; c = c->next) {
			if (c->due && c->due <= now) {
				shutdown(c->fd, SHUT_RDWR);
				c->due = 0;
			} else if (c->due && c->due < next) {
				next = c->due;
			}
		}
		if (next == UINT64_MAX) {
			pthread_cond_wait(&h->due, &h->lock);
			continue;
		}
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		pthread_cond_timedwait(&h->due, &h->lock, &ts);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* A connection opened (its deadline starts) or closed (forgotten). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **ctx,
			  enum MHD_ConnectionNotificationCode what)
{
	struct ot_prom_http *h = cls;
	const union MHD_ConnectionInfo *info;
	struct conn *c = *ctx, **p;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		c = ot_xcalloc(1, sizeof(*c));
		c->fd = info ? fcntl(info->connect_fd, F_DUPFD_CLOEXEC, 0) : -1;
		c->due = c->fd >= 0 ? mono_ns() + REQUEST_NS : 0;
		pthread_mutex_lock(&h->lock);
		c->next = h->conns;
		h->conns = c;
		pthread_cond_signal(&h->due);
		pthread_mutex_unlock(&h->lock);
		*ctx = c;
		return;
	}
	if (!c)
		return;
	pthread_mutex_lock(&h->lock);
	for (p = &h->conns; *p && *p != c; p = &(*p)->next)
		;
	if (*p)
		*p = c->next;
	pthread_mutex_unlock(&h->lock);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	*ctx = NULL;
}

/* An answer sent: the connection's next request (keep-alive) has its own
 * deadline. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **req_ctx,
			 enum MHD_RequestTerminationCode toe)
{
	struct ot_prom_http *h = cls;
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = info ? info->socket_context : NULL;

	(void)req_ctx, (void)toe;
	pthread_mutex_lock(&h->lock);
	if (c && c->due)
		c->due = mono_ns() + REQUEST_NS;
	pthread_mutex_unlock(&h->lock);
}

/* Whether sa is this machine's loopback (127.0.0.0/8, ::1, ::ffff:127.x). */
static int loopback(const struct sockaddr *sa)
{
	const struct in6_addr *a6;

	if (sa->sa_family == AF_INET)
		return ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >> 24 == 127;
	if (sa->sa_family != AF_INET6)
		return 0;
	a6 = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	return IN6_IS_ADDR_LOOPBACK(a6) || (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127);
}

/* Fresh metrics asked for, waited for a while; a copy of one format's. */
static char *latest(struct ot_prom_http *h, int om, size_t *len)
{
	uint64_t one = 1, gen;
	struct timespec ts;
	char *copy = NULL;

	pthread_mutex_lock(&h->lock);
	gen = h->gen;
	if (write(h->efd, &one, sizeof(one)) < 0)
		(void)0;	/* already a wake-up pending: EAGAIN at the counter's top only */
	deadline(&ts);
	while (h->gen == gen)
		if (pthread_cond_timedwait(&h->fresh, &h->lock, &ts) == ETIMEDOUT)
			break;
	if (h->text) {
		*len = om ? h->om_len : h->text_len;
		copy = ot_xmalloc(*len + 1);
		memcpy(copy, om ? h->om : h->text, *len);
	}
	pthread_mutex_unlock(&h->lock);
	return copy;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *type,
			     char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_len, void **state)
{
	struct ot_prom_http *h = cls;
	const char *accept;
	char *body;
	size_t len = 0;
	int om;

	(void)version, (void)upload, (void)upload_len, (void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			     ot_xstrdup("GET /metrics\n"), 13);
	if (!strcmp(url, "/")) {
		body = ot_xstrdup("orbit-trace: the capture's metrics are at /metrics\n");
		return reply(conn, MHD_HTTP_OK, "text/plain; charset=utf-8", body, strlen(body));
	}
	if (strcmp(url, "/metrics"))
		return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			     ot_xstrdup("not found: the metrics are at /metrics\n"), 39);
	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	om = ot_prom_wants_openmetrics(accept);
	body = latest(h, om, &len);
	if (!body)
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
			     ot_xstrdup("the capture has not started yet\n"), 32);
	return reply(conn, MHD_HTTP_OK, om ? OT_PROM_TYPE_OPENMETRICS : OT_PROM_TYPE_TEXT,
		     body, len);
}

int ot_prom_http_parse(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(addr, ':');
	const char *h = addr, *p = colon ? colon + 1 : addr;
	size_t n = colon ? (size_t)(colon - addr) : 0;

	if (colon && addr[0] == '[') {
		if (n < 2 || addr[n - 1] != ']')
			return -EINVAL;
		h = addr + 1;
		n -= 2;
	} else if (colon && memchr(addr, ':', n)) {
		return -EINVAL;	/* a bare IPv6 address: its port is ambiguous */
	}
	if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) >= plen || n >= hlen)
		return -EINVAL;
	snprintf(host, hlen, "%.*s", (int)n, h);
	if (!n)
		snprintf(host, hlen, "127.0.0.1");
	snprintf(port, plen, "%s", p);
	return atoi(p) > 65535 ? -EINVAL : 0;
}

static struct MHD_Daemon *listen_on(struct ot_prom_http *h, const struct addrinfo *ai)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	sigset_t all, old;
	struct MHD_Daemon *d;

	/* The threads inherit this mask: the capture's signals stay its own. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
			     MHD_OPTION_SOCK_ADDR, ai->ai_addr,
			     MHD_OPTION_CONNECTION_LIMIT, MAX_CONNECTIONS,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, MAX_PER_ADDRESS,
			     MHD_OPTION_CONNECTION_TIMEOUT, IDLE_SECONDS,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

static void set_url(struct ot_prom_http *h, const struct addrinfo *ai, const char *host)
{
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	unsigned port = info ? info->port : 0;

	snprintf(h->url, sizeof(h->url), ai->ai_family == AF_INET6 ? "http://[%s]:%u/metrics" :
		 "http://%s:%u/metrics", host, port);
}

/* The deadlines' thread, with every signal blocked as the server's. */
static int start_reaper(struct ot_prom_http *h)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&h->reaper, NULL, reaper, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	h->reaper_started = !err;
	errno = err;
	return err ? -1 : 0;
}

int ot_prom_http_start(const char *addr, struct ot_prom_http **out)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct ot_prom_http *h;
	pthread_condattr_t ca;
	char host[64], port[8];
	int err;

	if (ot_prom_http_parse(addr, host, sizeof(host), port, sizeof(port))) {
		ot_error("--listen '%s': expected HOST:PORT, [IPV6]:PORT or PORT", addr);
		return -EINVAL;
	}
	if ((err = getaddrinfo(host, port, &hints, &ai))) {
		ot_error("--listen '%s': %s", addr, gai_strerror(err));
		return -EINVAL;
	}
	h = ot_xcalloc(1, sizeof(*h));
	h->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->fresh, &ca);
	pthread_cond_init(&h->due, &ca);
	pthread_condattr_destroy(&ca);
	errno = 0;
	if (h->efd < 0 || start_reaper(h) || !(h->d = listen_on(h, ai))) {
		err = errno ? errno : EADDRINUSE;
		ot_error_errno(err, "--listen '%s': cannot listen", addr);
		freeaddrinfo(ai);
		ot_prom_http_stop(h);
		return -err;
	}
	set_url(h, ai, host);
	if (!loopback(ai->ai_addr))
		ot_warn("--listen '%s' is not a loopback address: whoever can reach this "
			"machine reads the capture's metrics there (function, file and process "
			"names, counted strings), without authentication", addr);
	freeaddrinfo(ai);
	*out = h;
	return 0;
}

const char *ot_prom_http_url(const struct ot_prom_http *h)
{
	return h->url;
}

int ot_prom_http_fd(const struct ot_prom_http *h)
{
	return h->efd;
}

int ot_prom_http_wanted(struct ot_prom_http *h)
{
	uint64_t v;

	return read(h->efd, &v, sizeof(v)) == (ssize_t)sizeof(v) && v > 0;
}

void ot_prom_http_publish(struct ot_prom_http *h, char *text, size_t text_len, char *om,
			  size_t om_len)
{
	pthread_mutex_lock(&h->lock);
	free(h->text);
	free(h->om);
	h->text = text;
	h->text_len = text_len;
	h->om = om;
	h->om_len = om_len;
	h->gen++;
	pthread_cond_broadcast(&h->fresh);
	pthread_mutex_unlock(&h->lock);
}

void ot_prom_http_stop(struct ot_prom_http *h)
{
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	if (h->reaper_started) {
		pthread_mutex_lock(&h->lock);
		h->stopping = 1;
		pthread_cond_signal(&h->due);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->reaper, NULL);
	}
	if (h->efd >= 0)
		close(h->efd);
	pthread_cond_destroy(&h->due);
	pthread_cond_destroy(&h->fresh);
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h->om);
	free(h);
}
