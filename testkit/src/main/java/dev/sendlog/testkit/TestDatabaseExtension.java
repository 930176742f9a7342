package dev.sendlog.testkit;

import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One migrated {@link TestDatabase} per test class, dropped after its last test:
 * <pre>{@code @RegisterExtension static final TestDatabaseExtension DB = new TestDatabaseExtension();}</pre>
 * The field must be static: JUnit runs class-level callbacks only for static extensions.
 */
public final class TestDatabaseExtension implements BeforeAllCallback, AfterAllCallback {
    private final boolean migrate;
    private TestDatabase database;
    // Nested test classes inherit the extension; only the class that created the database drops it.
    private String ownerContextId;

    public TestDatabaseExtension() {
        this(true);
    }

    private TestDatabaseExtension(boolean migrate) {
        this.migrate = migrate;
    }

    /** A database with no migrations applied. */
    public static TestDatabaseExtension empty() {
        return new TestDatabaseExtension(false);
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (database == null) {
            database = migrate ? TestDatabase.create() : TestDatabase.createEmpty();
            ownerContextId = context.getUniqueId();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (database != null && context.getUniqueId().equals(ownerContextId)) {
            try {
                database.close();
            } finally {
                database = null;
                ownerContextId = null;
            }
        }
    }

    public synchronized TestDatabase database() {
        if (database == null) {
            throw new IllegalStateException("no test database: register TestDatabaseExtension on a static field "
                    + "with @RegisterExtension and use it inside the test class");
        }
        return database;
    }

    public DataSource dataSource() {
        return database().dataSource();
    }

    public String jdbcUrl() {
        return database().jdbcUrl();
    }
}
