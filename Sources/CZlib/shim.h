// zlib (RFC 1951 raw deflate for IMAP COMPRESS=DEFLATE, RFC 4978): the system's, on Linux and Apple platforms alike.
#include <zlib.h>
