#!/usr/bin/env bash
# Real Unix accounts for the tests of a daemon that runs each job as its owner (as root):
#   bash tests/test_accounts.sh create    sqz-alice and sqz-bob (group sqz-ml), sqz-carol (in
#                                         group sqz-admins) and sqz-docs, when missing
#   bash tests/test_accounts.sh remove    removes those this script made (and their homes)
# Only root can; as anyone else both say so and exit 0 (the tests that need the accounts skip).
# The accounts carry the comment "squeeze test account", so nothing else is ever removed.
set -uo pipefail
MARK="squeeze test account"
USERS=(sqz-alice sqz-bob sqz-carol sqz-docs)
GROUPS_MADE=(sqz-ml sqz-admins)

if [[ "$(id -u)" != 0 ]]; then
  echo "test-accounts: not root: no accounts made or removed (tests that need them skip)"
  exit 0
fi
case "${1:-}" in
  create)
    for g in "${GROUPS_MADE[@]}"; do getent group "$g" >/dev/null || groupadd "$g" || exit 1; done
    for u in "${USERS[@]}"; do
      if ! getent passwd "$u" >/dev/null; then
        useradd --create-home --comment "$MARK" --shell /bin/bash "$u" || exit 1
      fi
    done
    usermod -a -G sqz-ml sqz-alice && usermod -a -G sqz-ml sqz-bob &&
      usermod -a -G sqz-admins sqz-carol || exit 1
    for u in "${USERS[@]}"; do echo "test-accounts: $(id "$u")"; done
    ;;
  remove)
    for u in "${USERS[@]}"; do
      if [[ "$(getent passwd "$u" | cut -d: -f5)" == "$MARK" ]]; then
        pkill -KILL -u "$u" 2>/dev/null
        userdel --remove "$u" 2>/dev/null || userdel "$u" || echo "test-accounts: cannot remove $u"
      fi
    done
    for g in "${GROUPS_MADE[@]}"; do
      getent group "$g" >/dev/null && { groupdel "$g" || echo "test-accounts: cannot remove group $g"; }
    done
    echo "test-accounts: removed"
    ;;
  *) echo "usage: bash tests/test_accounts.sh create|remove" >&2; exit 2 ;;
esac
