package dev.sendlog.testkit;

/** Where the test harness found a server, in the order it looks. */
public enum ServerSource {
    /** Named by SENDLOG_TEST_PG_URL / SENDLOG_TEST_REDIS_URL. */
    ENVIRONMENT,
    /** Already listening on the default local port (127.0.0.1:5432, 127.0.0.1:6379). */
    LOCAL_DEFAULT_PORT,
    /** A container started through Testcontainers. */
    TESTCONTAINERS,
    /** Started by this JVM as a child process (embedded PostgreSQL, local redis-server). */
    EMBEDDED
}
