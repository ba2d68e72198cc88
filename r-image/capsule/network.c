/* Network: sockets and name resolution. */
#define _GNU_SOURCE
#include "capsule.h"

#include <netdb.h>
#include <sys/socket.h>

/* ------------------------------------------------------------------------------------------- */
/* Network                                                                                      */
/* ------------------------------------------------------------------------------------------- */

REAL(int, socket, (int, int, int))
REAL(int, socketpair, (int, int, int, int[2]))
REAL(int, connect, (int, const struct sockaddr *, socklen_t))
REAL(int, bind, (int, const struct sockaddr *, socklen_t))
REAL(int, getaddrinfo, (const char *, const char *, const struct addrinfo *, struct addrinfo **))
REAL(struct hostent *, gethostbyname, (const char *))
REAL(struct hostent *, gethostbyname2, (const char *, int))
REAL(int, getnameinfo, (const struct sockaddr *, socklen_t, char *, socklen_t, char *, socklen_t, int))

API int socket(int domain, int type, int protocol) {
  DENY("socket", -1, EACCES);
  return real_socket()(domain, type, protocol);
}
API int socketpair(int domain, int type, int protocol, int sv[2]) {
  DENY("socketpair", -1, EACCES);
  return real_socketpair()(domain, type, protocol, sv);
}
API int connect(int fd, const struct sockaddr *addr, socklen_t len) {
  DENY("connect", -1, EACCES);
  return real_connect()(fd, addr, len);
}
API int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  DENY("bind", -1, EACCES);
  return real_bind()(fd, addr, len);
}
/* The resolver opens its sockets inside libc, past socket(): refuse the lookups themselves. */
API int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
  if (armed()) {
    refused("getaddrinfo", node);
    return EAI_FAIL;
  }
  return real_getaddrinfo()(node, service, hints, res);
}
API struct hostent *gethostbyname(const char *name) {
  if (armed()) {
    refused("gethostbyname", name);
    h_errno = NO_RECOVERY;
    return NULL;
  }
  return real_gethostbyname()(name);
}
API struct hostent *gethostbyname2(const char *name, int af) {
  if (armed()) {
    refused("gethostbyname2", name);
    h_errno = NO_RECOVERY;
    return NULL;
  }
  return real_gethostbyname2()(name, af);
}
typedef int (*gethostbyname_r_fn)(const char *, struct hostent *, char *, size_t, struct hostent **, int *);
API int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t len, struct hostent **result, int *err) {
  if (armed()) {
    refused("gethostbyname_r", name);
    *result = NULL;
    *err = NO_RECOVERY;
    return EACCES;
  }
  gethostbyname_r_fn fn = (gethostbyname_r_fn)next_symbol("gethostbyname_r");
  return fn(name, ret, buf, len, result, err);
}
REAL(struct hostent *, gethostbyaddr, (const void *, socklen_t, int))
API struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type) {
  if (armed()) {
    refused("gethostbyaddr", NULL);
    h_errno = NO_RECOVERY;
    return NULL;
  }
  return real_gethostbyaddr()(addr, len, type);
}
API int getnameinfo(const struct sockaddr *addr, socklen_t len, char *host, socklen_t hostlen, char *serv, socklen_t servlen, int flags) {
  if (armed()) {
    refused("getnameinfo", NULL);
    return EAI_FAIL;
  }
  return real_getnameinfo()(addr, len, host, hostlen, serv, servlen, flags);
}
typedef int (*res_fn)(const char *, int, int, unsigned char *, int);
static int resolver_call(const char *name, const char *dname, int class_, int type, unsigned char *answer, int anslen) {
  if (armed()) {
    refused(name, dname);
    h_errno = NO_RECOVERY;
    return -1;
  }
  res_fn fn = (res_fn)next_symbol(name);
  if (!fn) {
    h_errno = NO_RECOVERY;
    return -1;
  }
  return fn(dname, class_, type, answer, anslen);
}
API int res_query(const char *d, int c, int t, unsigned char *a, int l) { return resolver_call("res_query", d, c, t, a, l); }
API int res_search(const char *d, int c, int t, unsigned char *a, int l) { return resolver_call("res_search", d, c, t, a, l); }
API int __res_query(const char *d, int c, int t, unsigned char *a, int l) { return resolver_call("__res_query", d, c, t, a, l); }
API int __res_search(const char *d, int c, int t, unsigned char *a, int l) { return resolver_call("__res_search", d, c, t, a, l); }
