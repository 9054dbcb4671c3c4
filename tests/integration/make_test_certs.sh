#!/bin/sh
# Makes a throwaway CA, a server certificate for 127.0.0.1/localhost and a client certificate,
# all signed by the CA, plus a second unrelated CA, in DIR. For the TLS tests only.
set -eu
dir=$1
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj /CN=provd-test-ca
key other-ca.key
openssl req -x509 -new -key other-ca.key -out other-ca.pem -days 2 -subj /CN=someone-else
key server.key
openssl req -new -key server.key -out server.csr -subj /CN=localhost
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
  -days 2 -extfile server.ext 2>/dev/null
key client.key
openssl req -new -key client.key -out client.csr -subj /CN=provd-test-client
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem \
  -days 2 -extfile client.ext 2>/dev/null
