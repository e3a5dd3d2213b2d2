#!/usr/bin/env bash
# Builds the grid node image's base without a registry: a Java runtime cut from the build JDK with
# jlink, the host's shared libraries that runtime (and the JNI libraries inside the node's jar)
# link, a minimal /etc and the host's CA certificates, as one layer in a `docker save` tarball that
# Jib takes as its `tar://` base (grid-node/pom.xml, profile image; docs/kubernetes.md).
#
#   jlink-base.sh <image.base> <out-dir> <java.home> <modules> <uid> <gid> <user> <jar>...
#
# It builds nothing when <image.base> is not <out-dir>/base.tar (a public base was chosen).
# Needs Linux, the JDK's jmods, and Debian's libc-bin (ldd), unzip, tar, coreutils and
# ca-certificates.
#
# Reproducible: the same JDK, the same host packages and the same jar give the same bytes (sorted
# entries, owner 0, times at the epoch, no creation time in the config), so the base layer's digest
# changes only when one of those does. The config records which JDK and which Debian packages went
# in (labels dev.sluice.base.*), and their copyright files ship in /usr/share/doc.
set -euo pipefail

if [ $# -lt 8 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
base=$1 out=$2 java_home=$3 modules=$4 uid=$5 gid=$6 user=$7
shift 7
jars=("$@")

if [ "$base" != "tar://$out/base.tar" ]; then
  echo "image.base is $base: the jlink base is not needed"
  exit 0
fi
if [ "$(uname -s)" != Linux ]; then
  echo "the jlink base holds Linux binaries and can only be built on Linux;" \
    "elsewhere pass -Dimage.base=<a JRE image from your registry>" >&2
  exit 1
fi
for tool in "$java_home/bin/jlink" ldd unzip tar sha256sum; do
  if ! command -v "$tool" >/dev/null; then
    echo "the jlink base needs $tool (a JDK with jmods; Debian's libc-bin, unzip, tar, coreutils)" >&2
    exit 1
  fi
done
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) echo "unsupported machine $(uname -m)" >&2; exit 1 ;;
esac

rootfs=$out/rootfs
rm -rf "$out"
mkdir -p "$out"

# 1. The runtime. Modules come from the pom (image.modules): the node's own needs, found with jdeps
# and checked by starting it (docs/kubernetes.md says how to add one).
"$java_home/bin/jlink" --add-modules "$modules" --output "$rootfs/opt/java" \
  --strip-debug --no-man-pages --no-header-files --compress=2 2> >(grep -v -- '--compress' >&2)
# The JDK's own CA certificates may be a stale copy; the host's ca-certificates-java store is the
# one Debian keeps current.
if [ -f /etc/ssl/certs/java/cacerts ]; then
  cp -L /etc/ssl/certs/java/cacerts "$rootfs/opt/java/lib/security/cacerts"
fi

# 2. Shared libraries: whatever ldd says the runtime's ELF files and the jar's JNI libraries for
# this machine (grpc-netty-shaded's epoll transport) need, at the path ldd found them, plus the
# dynamic loader. glibc 2.34+ keeps NSS files/dns, libdl, librt and libpthread in libc, so name
# lookups need no further modules.
natives=$out/natives
mkdir -p "$natives"
for jar in "${jars[@]}"; do
  unzip -q -o -d "$natives" "$jar" 'META-INF/native/*.so' 2>/dev/null || true
done
mapfile -t elves < <(find "$rootfs/opt/java" "$natives" -type f \( -name '*.so' -o -path '*/bin/*' \))
libs=()
for elf in "${elves[@]}"; do
  # Another architecture's library (the jar carries several) has nothing ldd can resolve.
  while read -r lib; do
    case "$lib" in
      "$rootfs"/* | "$natives"/*) ;;
      /*) libs+=("$lib") ;;
    esac
  done < <(ldd "$elf" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }')
done
# libjvm.so is found at run time through the launcher, not through ldd's search path.
missing=$(for elf in "${elves[@]}"; do ldd "$elf" 2>/dev/null | grep 'not found' || true; done \
  | grep -v 'libjvm.so' | sort -u || true)
packages=()
for lib in $(printf '%s\n' "${libs[@]}" | sort -u); do
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
  if command -v dpkg-query >/dev/null; then
    # Merged /usr: a package may have registered the file under /usr/lib or under /lib.
    packages+=("$({ dpkg-query -S "$lib" || dpkg-query -S "$(readlink -f "$lib")"; } 2>/dev/null \
      | head -1 | cut -d: -f1)")
  fi
done
if [ -n "$missing" ]; then
  echo "unresolved libraries: $missing" >&2
  exit 1
fi

# 3. /etc: the chart's non-root user (podSecurityContext.runAsUser), name lookups from files then
# DNS, and the system CA bundle for anything that reads it.
mkdir -p "$rootfs/etc/ssl/certs" "$rootfs/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\n%s:x:%s:%s:Sluice grid node:/tmp:/sbin/nologin\n' \
  "$user" "$uid" "$gid" >"$rootfs/etc/passwd"
printf 'root:x:0:\n%s:x:%s:\n' "$user" "$gid" >"$rootfs/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$rootfs/etc/hosts"
cp -L /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
packages+=(ca-certificates)
[ -f /etc/ssl/certs/java/cacerts ] && packages+=(ca-certificates-java)

# Licences of what was copied from the host, as Debian ships them.
versions=()
for package in $(printf '%s\n' "${packages[@]}" | grep -v '^$' | sort -u); do
  if [ -f "/usr/share/doc/$package/copyright" ]; then
    mkdir -p "$rootfs/usr/share/doc/$package"
    cp -L "/usr/share/doc/$package/copyright" "$rootfs/usr/share/doc/$package/copyright"
  fi
  versions+=("$package=$(dpkg-query -W -f='${Version}' "$package" 2>/dev/null || echo unknown)")
done
# The runtime's full version (vendor build included); running it is a first check that it starts.
java_version=$("$rootfs/opt/java/bin/java" -XshowSettings:properties -version 2>&1 \
  | sed -n 's/^ *java.runtime.version = //p')

# 4. One layer, then the `docker save` layout around it.
chmod -R u+rwX,go+rX,go-w "$rootfs"
chmod 1777 "$rootfs/tmp"
deterministic=(--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu)
# Entries named without a leading ./ (Jib refuses an archive entry "./").
entries() { (cd "$1" && LC_ALL=C ls -A); }
tar "${deterministic[@]}" -C "$rootfs" -cf "$out/layer.tar" $(entries "$rootfs")
layer=$(sha256sum "$out/layer.tar" | cut -d' ' -f1)
archive=$out/archive
mkdir -p "$archive/$layer"
mv "$out/layer.tar" "$archive/$layer/layer.tar"
config=$(printf '{"architecture":"%s","os":"linux","config":{"User":"%s:%s","Env":["PATH=/opt/java/bin","JAVA_HOME=/opt/java"],"WorkingDir":"/tmp","Labels":{"dev.sluice.base.java":"%s","dev.sluice.base.modules":"%s","dev.sluice.base.packages":"%s"}},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"grid-node/src/image/jlink-base.sh"}]}' \
  "$arch" "$uid" "$gid" "$java_version" "$modules" "${versions[*]}" "$layer")
config_digest=$(printf '%s' "$config" | sha256sum | cut -d' ' -f1)
printf '%s' "$config" >"$archive/$config_digest.json"
printf '[{"Config":"%s.json","RepoTags":["sluice-jlink-base:local"],"Layers":["%s/layer.tar"]}]' \
  "$config_digest" "$layer" >"$archive/manifest.json"
tar "${deterministic[@]}" -C "$archive" -cf "$out/base.tar" $(entries "$archive")
rm -rf "$archive" "$natives"
echo "jlink base: $out/base.tar ($(du -m "$out/base.tar" | cut -f1) MB, layer sha256:$layer)"
