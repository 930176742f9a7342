package dev.sendlog.service.support;

import dev.sendlog.service.SendlogApplication;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.testkit.TestDatabase;
import io.dropwizard.core.Application;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.ResourceHelpers;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the real service for a test class: a fresh migrated database, the application on free ports,
 * a clock the test controls, and an HTTP client. Stopped and the database dropped after the class.
 */
public class ServiceHarness implements BeforeAllCallback, AfterAllCallback {
    private final List<ConfigOverride> overrides = new ArrayList<>();
    private final MutableClock clock;
    private TestDatabase database;
    private DropwizardTestSupport<SendlogConfiguration> support;
    private ApiClient api;

    public ServiceHarness(String... keyValues) {
        this(MutableClock.startingNow(), keyValues);
    }

    public ServiceHarness(MutableClock clock, String... keyValues) {
        this.clock = clock;
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            overrides.add(ConfigOverride.config(keyValues[i], keyValues[i + 1]));
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        database = TestDatabase.create();
        start();
    }

    /** Starts (or starts again after {@link #stop()}) the application on the same database. */
    public void start() throws Exception {
        List<ConfigOverride> all = new ArrayList<>();
        all.add(ConfigOverride.config("database.url", database.jdbcUrl()));
        all.addAll(overrides);
        MutableClock appClock = clock;
        support = new DropwizardTestSupport<>(SendlogApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
                all.toArray(ConfigOverride[]::new)) {
            @Override
            public Application<SendlogConfiguration> newApplication() {
                return new SendlogApplication(appClock);
            }
        };
        support.before();
        api = new ApiClient("http://127.0.0.1:" + support.getLocalPort());
    }

    public void stop() {
        if (support != null) {
            support.after();
            support = null;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            stop();
        } finally {
            if (database != null) {
                database.close();
            }
        }
    }

    public ApiClient api() {
        return api;
    }

    public ApiClient admin() {
        return new ApiClient("http://127.0.0.1:" + support.getAdminPort());
    }

    public MutableClock clock() {
        return clock;
    }

    public Instant now() {
        return clock.instant();
    }

    public DataSource dataSource() {
        return database.dataSource();
    }

    public TestDatabase database() {
        return database;
    }

    public SendlogConfiguration configuration() {
        return support.getConfiguration();
    }
}
