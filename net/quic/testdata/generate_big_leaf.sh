#!/bin/sh
# Regenerates big_leaf_chain.pem / big_leaf.key (http3_session_unittest's
# TokenLiftsTheAmplificationLimit): a leaf for www.example.test issued by
# cert/testdata's good_intermediate, padded with 90 extra DNS names to 3.5 KB
# of DER, so the QUIC server's first flight (leaf + intermediate, ~4.4 KB)
# exceeds the 3x anti-amplification allowance of one 1200-byte Initial.
# Valid for 20 years from generation. Run from this directory.
set -e
ca=../../../cert/testdata
work=$(mktemp -d)
san="DNS:www.example.test,DNS:localhost,IP:127.0.0.1"
for i in $(seq 1 90); do san="$san,DNS:padding-name-$i.example.test"; done
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$san" >"$work/ext.cnf"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out big_leaf.key 2>/dev/null
openssl req -new -key big_leaf.key -subj "/CN=www.example.test" -out "$work/big.csr"
openssl x509 -req -in "$work/big.csr" -CA "$ca/good_intermediate.pem" \
  -CAkey "$ca/good_intermediate.key" -set_serial 0x51c0ffee -days 7300 \
  -extfile "$work/ext.cnf" -out "$work/leaf.pem"
cat "$work/leaf.pem" "$ca/good_intermediate.pem" >big_leaf_chain.pem
rm -r "$work"
