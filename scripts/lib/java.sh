# Sourced by every script: picks a JDK 21+ and exports JAVA_HOME.
# Order: SENDLOG_JAVA_HOME, the Temurin 25 this project is built with, the caller's JAVA_HOME, the java on the PATH.
sendlog_pick_java() {
  local candidates=("${SENDLOG_JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 "${JAVA_HOME:-}")
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  local home version
  for home in "${candidates[@]}"; do
    [ -n "$home" ] && [ -x "$home/bin/java" ] || continue
    version=$("$home/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
    if [ "${version%%.*}" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$home"
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
  done
  echo "sendlog needs a JDK 21 or newer: set SENDLOG_JAVA_HOME or JAVA_HOME" >&2
  return 1
}
sendlog_pick_java
