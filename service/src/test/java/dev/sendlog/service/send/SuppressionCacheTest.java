package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.accept.SuppressionStore;
import dev.sendlog.service.support.ApiClient;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.InstantSource;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The send workers' copy of the suppression lists: a change made through one instance reaches another instance's
 * worker by LISTEN/NOTIFY (the bound here is an hour, so polling cannot be what brought it); without a listener the
 * cache still catches up within its bound by polling; and a cache not yet loaded answers from the database, never from
 * an empty memory.
 */
class SuppressionCacheTest {
    /** No send worker here: the only worker is the other instance's. maxStaleness 1h: its poll is every 20 minutes. */
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
            "components", "API,POLLER,MAINTENANCE,CALLBACK_WORKER", "pipeline.suppression.maxStaleness", "1h");

    private static ApiResponse put(String to, String reason) {
        ApiClient api = SERVICE.api();
        String body = "{\"reason\":\"" + reason + "\"}";
        return api.send(
                api.builder("/v1/suppressions/" + to, "client-a", "Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body)),
                body);
    }

    private static long newestChange() {
        return Sql.count(SERVICE.dataSource(), "SELECT coalesce(max(id), 0) FROM suppression_changes");
    }

    private static long appliedBy(ServiceHarness.Instance instance) {
        return instance.admin()
                .get("/metrics", null)
                .json()
                .path("gauges")
                .path("suppression.cache.change.id")
                .path("value")
                .asLong();
    }

    private static SuppressionStore store() {
        return new SuppressionStore(DSL.using(SERVICE.dataSource(), SQLDialect.POSTGRES), InstantSource.system());
    }

    @Test
    void aChangeMadeThroughOneInstanceReachesAnotherInstancesWorkerByNotify() throws Exception {
        try (ServiceHarness.Instance worker = SERVICE.startAnother(null, "components", "SEND_WORKER")) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> worker.admin()
                                    .get("/metrics", null)
                                    .json()
                                    .path("gauges")
                                    .path("suppression.cache.listening")
                                    .path("value")
                                    .asInt()
                            == 1);
            String to = Messages.recipient();
            assertThat(put(to, "user replied STOP").status()).isEqualTo(200);
            long change = newestChange();
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> appliedBy(worker) >= change);

            String id = Messages.submitOne(SERVICE, to);
            Messages.awaitStatus(SERVICE, id, "REJECTED", Duration.ofSeconds(30));
            assertThat(SERVICE.api()
                            .get("/v1/messages/" + id, "client-a")
                            .json()
                            .get("lastError")
                            .asText())
                    .isEqualTo("suppressed");

            assertThat(SERVICE.api()
                            .send(SERVICE.api()
                                    .builder("/v1/suppressions/" + to, "client-a")
                                    .DELETE())
                            .status())
                    .isEqualTo(204);
            long removal = newestChange();
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> appliedBy(worker) >= removal);
            String again = Messages.submitOne(SERVICE, to);
            Messages.awaitStatus(SERVICE, again, "SENT", Duration.ofSeconds(30));
        }
    }

    @Test
    void aCacheNotYetLoadedAsksTheDatabaseInsteadOfAnsweringFromAnEmptyMemory() {
        String to = Messages.recipient();
        assertThat(put(to, "opted out").status()).isEqualTo(200);
        MetricRegistry metrics = new MetricRegistry();
        SuppressionCache cache = new SuppressionCache(store(), SERVICE.dataSource(), Duration.ofHours(1), metrics);

        assertThat(cache.fresh()).isFalse();
        assertThat(cache.suppressed("acme", to)).isTrue();
        assertThat(cache.suppressed("globex", to)).isFalse();
        assertThat(metrics.counter("suppression.checks.direct").getCount()).isEqualTo(2);

        cache.catchUp();
        assertThat(cache.fresh()).isTrue();
        assertThat(cache.suppressed("acme", to)).isTrue();
        assertThat(metrics.counter("suppression.checks.direct").getCount())
                .as("from memory once loaded")
                .isEqualTo(2);
    }

    @Test
    void withoutItsListenerTheCacheStillCatchesUpWithinItsBoundByPolling() throws Exception {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setUrl("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1");
        MetricRegistry metrics = new MetricRegistry();
        Duration bound = Duration.ofMillis(600);
        SuppressionCache cache = new SuppressionCache(store(), nowhere, bound, metrics);
        cache.start();
        try {
            await().atMost(Duration.ofSeconds(5)).until(cache::fresh);
            String to = Messages.recipient();
            assertThat(cache.suppressed("acme", to)).isFalse();
            assertThat(put(to, "user replied STOP").status()).isEqualTo(200);
            long committed = System.nanoTime();
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> cache.suppressed("acme", to));
            assertThat(Duration.ofNanos(System.nanoTime() - committed))
                    .as("within the bound, not by NOTIFY")
                    .isLessThan(bound);
            assertThat(cache.listening()).isFalse();
            assertThat(metrics.counter("suppression.checks.direct").getCount())
                    .as("answered from memory")
                    .isZero();
        } finally {
            cache.stop();
        }
    }
}
