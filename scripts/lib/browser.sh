# Sourced by scripts/test: the support console's browser tests drive Debian's Chromium through its chromedriver.
# A fresh machine has neither, so the README's test command installs them where it can (Debian or Ubuntu, as root
# or with password-less sudo) and otherwise stops at once with what to install, instead of failing deep in Maven.
# SENDLOG_SKIP_BROWSER=true skips the browser tests instead (they are reported as skipped, with the reason).
sendlog_ensure_chromium() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    return 0
  fi
  if [ "${SENDLOG_SKIP_BROWSER:-false}" = "true" ]; then
    SENDLOG_MAVEN_EXTRA+=(-Dsendlog.console.optional=true)
    echo "scripts/test: Chromium missing; the console's browser tests will be skipped (SENDLOG_SKIP_BROWSER=true)" >&2
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      sudo=(none)
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1 || [ "${sudo[0]:-}" = none ]; then
    echo "scripts/test: the console's browser tests need Chromium and chromedriver at /usr/bin/chromium and" >&2
    echo "  /usr/bin/chromedriver. Install them (Debian/Ubuntu: apt-get install -y chromium chromium-driver)," >&2
    echo "  or run SENDLOG_SKIP_BROWSER=true scripts/test to skip those tests." >&2
    return 1
  fi
  echo "scripts/test: installing Debian's chromium and chromium-driver for the console's browser tests" >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium chromium-driver >/dev/null
}
