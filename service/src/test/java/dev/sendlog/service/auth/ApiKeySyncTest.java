package dev.sendlog.service.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.service.support.ApiClient;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The key table is the configured keys (issue 24, item 3): a process that starts revokes the keys its configuration
 * no longer lists and applies changed tenants and roles; a process already running stops accepting a revoked key
 * within {@code auth.cacheSeconds} (1 s in test-config.yml), even while the key is in constant use.
 *
 * <p>A is {@code client-a} (a client of acme), B is {@code admin-1} (an admin), both in test-config.yml.
 */
class ApiKeySyncTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    private static boolean edited;

    /** Only A, now a support key; client-b moved to tenant acme; a new client key of initech. */
    private static final Consumer<ObjectNode> ONLY_A_AS_SUPPORT = config -> {
        ArrayNode keys = ((ObjectNode) config.get("auth")).putArray("keys");
        keys.addObject().put("key", "client-a").put("tenant", "acme").put("role", "support");
        keys.addObject().put("key", "client-b").put("tenant", "acme").put("role", "client");
        keys.addObject().put("key", "client-c").put("tenant", "initech").put("role", "client");
    };

    @BeforeEach
    void theConfiguredKeysOfTestConfig() throws Exception {
        if (edited) {
            SERVICE.stop();
            SERVICE.configure(null);
            SERVICE.start();
            edited = false;
        }
    }

    private static int adminDead(ApiClient api, String key) {
        return api.get("/v1/admin/dead", key).status();
    }

    private static int submit(ApiClient api, String key) {
        return api.post("/v1/messages", key, "{\"to\":\"" + Messages.recipient() + "\",\"body\":\"hi\"}")
                .status();
    }

    /** What a process that starts with ONLY_A_AS_SUPPORT answers at once: the new keys, nothing of the old ones. */
    private static void assertTheNewKeysApply(ApiClient api, ApiClient admin, String acmeMessage) {
        ApiResponse b = api.get("/v1/admin/dead", "admin-1");
        assertThat(b.status()).as("B was removed").isEqualTo(401);
        assertThat(b.contentType()).startsWith("application/problem+json");
        assertThat(adminDead(api, "support-1")).as("support-1 was removed").isEqualTo(401);
        assertThat(admin.post("/tasks/gc", "admin-1", "").status())
                .as("B on the admin port")
                .isEqualTo(401);
        assertThat(adminDead(api, "client-a")).as("A is a support key now").isEqualTo(200);
        assertThat(submit(api, "client-a")).as("and no longer a client").isEqualTo(403);
        assertThat(api.get("/v1/messages/" + acmeMessage, "client-b").status())
                .as("client-b moved to acme")
                .isEqualTo(200);
        assertThat(submit(api, "client-c")).as("a new key").isEqualTo(202);
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM api_keys"))
                .isEqualTo(3);
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM api_keys WHERE key_hash = '" + ApiKeyHash.of("client-a")
                                + "' AND tenant = 'acme' AND role = 'support' AND name = 'acme-support'"))
                .isEqualTo(1);
    }

    @Test
    void aProcessStartingWithOnlyAAsSupportRevokesBThereAtOnceAndInARunningProcessWithinCacheSeconds()
            throws Exception {
        ApiClient running = SERVICE.api();
        assertThat(adminDead(running, "admin-1")).isEqualTo(200);
        assertThat(adminDead(running, "client-a")).isEqualTo(403);
        String acmeMessage = Messages.submitOne(SERVICE, Messages.recipient());
        assertThat(running.get("/v1/messages/" + acmeMessage, "client-b").status())
                .as("globex cannot see acme")
                .isEqualTo(404);

        // The running process keeps B in use (so in its cache) all the while the other one starts and syncs.
        AtomicBoolean using = new AtomicBoolean(true);
        AtomicInteger acceptedWhileStarting = new AtomicInteger();
        Thread user = Thread.ofVirtual().start(() -> {
            while (using.get()) {
                if (adminDead(running, "admin-1") == 200) {
                    acceptedWhileStarting.incrementAndGet();
                }
                try {
                    Thread.sleep(50); // paces the use (20 requests a second); nothing is awaited here
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        edited = true;
        try (ServiceHarness.Instance other = SERVICE.startAnother(ONLY_A_AS_SUPPORT, "components", "API")) {
            using.set(false);
            user.join();
            assertThat(acceptedWhileStarting.get())
                    .as("B was in use in the running process")
                    .isPositive();
            long synced = System.nanoTime();
            assertTheNewKeysApply(other.api(), other.admin(), acmeMessage);

            // Every poll uses B again: a cache that kept a key while it is used would never let go of it.
            await().atMost(Duration.ofMillis(2500))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> {
                        assertThat(adminDead(running, "admin-1"))
                                .as("B in the running process")
                                .isEqualTo(401);
                        assertThat(adminDead(running, "client-a"))
                                .as("A's new role in the running process")
                                .isEqualTo(200);
                        assertThat(running.get("/v1/messages/" + acmeMessage, "client-b")
                                        .status())
                                .isEqualTo(200);
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - synced)).isLessThan(Duration.ofMillis(2500));
            assertThat(SERVICE.admin().post("/tasks/gc", "admin-1", "").status())
                    .as("B on the admin port")
                    .isEqualTo(401);
        }
    }

    @Test
    void aRestartWithOnlyAAsSupportMakesBAnswer401AndATheSupportRole() throws Exception {
        String acmeMessage = Messages.submitOne(SERVICE, Messages.recipient());
        assertThat(adminDead(SERVICE.api(), "admin-1")).isEqualTo(200);
        edited = true;
        SERVICE.stop();
        SERVICE.configure(ONLY_A_AS_SUPPORT);
        SERVICE.start();
        assertTheNewKeysApply(SERVICE.api(), SERVICE.admin(), acmeMessage);
    }

    @Test
    void anUnchangedConfigurationChangesNoRow() throws Exception {
        String before = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM api_keys") + " keys, xmin "
                + Sql.count(SERVICE.dataSource(), "SELECT sum(xmin::text::bigint) FROM api_keys");
        SERVICE.stop();
        SERVICE.start();
        String after = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM api_keys") + " keys, xmin "
                + Sql.count(SERVICE.dataSource(), "SELECT sum(xmin::text::bigint) FROM api_keys");
        assertThat(after).as("the rows were not rewritten").isEqualTo(before);
        assertThat(adminDead(SERVICE.api(), "admin-1")).isEqualTo(200);
    }
}
