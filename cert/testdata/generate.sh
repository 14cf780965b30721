#!/usr/bin/env bash
# Regenerates the certificate fixtures in this folder (named by outcome).
# Fixed validity windows, so tests pass a verification time and stay
# deterministic:
#   good_*      valid 2025-01-01 .. 2045-01-01
#   expired_*   valid 2020-01-01 .. 2021-01-01
# Run from anywhere: cert/testdata/generate.sh
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/ca.cnf" <<CNF
[ ca ]
default_ca = ca_default
[ ca_default ]
dir = $work
database = $work/index.txt
new_certs_dir = $work
serial = $work/serial
default_md = sha256
policy = policy_any
copy_extensions = copy
unique_subject = no
[ policy_any ]
commonName = supplied
[ v3_ca ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ v3_leaf ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF
: > "$work/index.txt"
echo 1000 > "$work/serial"

ca_sign() {  # csr issuer_cert issuer_key ext start end out
  openssl ca -batch -config "$work/ca.cnf" -in "$1" -cert "$2" -keyfile "$3" \
    -extensions "$4" -startdate "$5" -enddate "$6" -out "$7" -notext 2>/dev/null
}

# Roots are self-signed; openssl ca -selfsign keeps the fixed dates.
make_root() {  # name cn
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$work/$1.csr"
  openssl ca -batch -config "$work/ca.cnf" -selfsign -in "$work/$1.csr" \
    -keyfile "$1.key" -extensions v3_ca -startdate 20250101000000Z \
    -enddate 20450101000000Z -out "$1.pem" -notext 2>/dev/null
}

make_leaf() {  # name san issuer start end [keyalg]
  if [[ "${6:-rsa}" == ec ]]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"
  else
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null
  fi
  openssl req -new -key "$1.key" -subj "/CN=${2%%,*}" \
    -addext "subjectAltName=$2" -out "$work/$1.csr"
  ca_sign "$work/$1.csr" "$3.pem" "$3.key" v3_leaf "$4" "$5" "$1.pem"
  cat "$1.pem" good_intermediate.pem > "$1_chain.pem"
}

make_root good_root "Netstack Test Root"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out good_intermediate.key 2>/dev/null
openssl req -new -key good_intermediate.key -subj "/CN=Netstack Test Intermediate" -out "$work/inter.csr"
ca_sign "$work/inter.csr" good_root.pem good_root.key v3_ca 20250101000000Z 20450101000000Z good_intermediate.pem

SAN="DNS:www.example.test,DNS:localhost,IP:127.0.0.1"
make_leaf good_leaf "$SAN" good_intermediate 20250101000000Z 20450101000000Z
make_leaf good_ecdsa_leaf "$SAN" good_intermediate 20250101000000Z 20450101000000Z ec
make_leaf expired_leaf "$SAN" good_intermediate 20200101000000Z 20210101000000Z
make_leaf bad_name_leaf "DNS:other.example.test" good_intermediate 20250101000000Z 20450101000000Z

make_root untrusted_root "Netstack Untrusted Root"
make_leaf untrusted_leaf "$SAN" untrusted_root 20250101000000Z 20450101000000Z
# The untrusted leaf's chain is just itself: no path to good_root.
cp untrusted_leaf.pem untrusted_leaf_chain.pem
rm -f untrusted_root.key good_root.key
chmod 644 ./*.pem ./*.key
echo "fixtures written to $(pwd)"
