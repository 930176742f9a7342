package dev.sendlog.service.send;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.accept.SuppressionStore;
import dev.sendlog.service.accept.SuppressionStore.Change;
import io.dropwizard.lifecycle.Managed;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every tenant's suppression list in memory, so that the claim-time check costs no database round trip per message.
 *
 * <p>Staleness is bounded by {@code maxStaleness} (pipeline.suppression.maxStaleness). The cache catches up (one indexed
 * query for the changes after the last id it applied) when PostgreSQL notifies a change on its own connection
 * (LISTEN sendlog_suppressions: usually milliseconds after the commit), and at least every third of the bound whether
 * or not a notification came. It answers from memory only while its last successful catch-up began less than
 * {@code maxStaleness} ago; otherwise (not loaded yet, the database unreachable) each check asks the database directly,
 * so a change committed at T is honoured by every check made after T + maxStaleness, and a worker never sends to a
 * possibly suppressed recipient on an old answer. If that direct query fails too, the check throws: the job is not
 * finished, and the claim deadline brings the message back.
 */
public final class SuppressionCache implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(SuppressionCache.class);
    private static final int CATCH_UP_PAGE = 10_000;
    private static final Duration RECONNECT_AFTER = Duration.ofSeconds(1);

    private final SuppressionStore store;
    private final DataSource listenSource;
    private final long maxStalenessNanos;
    private final long refreshMs;
    private final Map<String, Set<String>> byTenant = new ConcurrentHashMap<>();
    private final Counter direct;
    private final Object catchUp = new Object();
    private volatile long lastChangeId = -1;
    private volatile long freshSinceNanos;
    private volatile boolean loaded;
    private volatile boolean listening;
    private volatile boolean running;
    private volatile Connection listenConnection;
    private Thread loop;

    /**
     * @param store        reads through a pool (catch-ups and direct checks)
     * @param listenSource an unpooled source for the one long-lived LISTEN connection (counted in the pool budget)
     */
    public SuppressionCache(
            SuppressionStore store, DataSource listenSource, Duration maxStaleness, MetricRegistry metrics) {
        if (maxStaleness.toMillis() < 3) {
            throw new IllegalArgumentException(
                    "pipeline.suppression.maxStaleness must be at least 3ms, is " + maxStaleness);
        }
        this.store = store;
        this.listenSource = listenSource;
        this.maxStalenessNanos = maxStaleness.toNanos();
        this.refreshMs = maxStaleness.toMillis() / 3;
        this.direct = metrics.counter("suppression.checks.direct");
        metrics.registerGauge("suppression.cache.change.id", () -> lastChangeId);
        metrics.registerGauge("suppression.cache.fresh", () -> fresh() ? 1 : 0);
        metrics.registerGauge("suppression.cache.listening", () -> listening ? 1 : 0);
    }

    /** Whether {@code tenant} has suppressed {@code recipient}: from memory while fresh, else from the database. */
    public boolean suppressed(String tenant, String recipient) {
        if (fresh()) {
            Set<String> listed = byTenant.get(tenant);
            return listed != null && listed.contains(recipient);
        }
        direct.inc();
        return store.isSuppressed(tenant, recipient);
    }

    /** The cache's answers are within the bound: loaded, and its last catch-up began less than maxStaleness ago. */
    public boolean fresh() {
        return loaded && System.nanoTime() - freshSinceNanos < maxStalenessNanos;
    }

    /** The id of the last change applied (-1 before the first load). */
    public long lastChangeId() {
        return lastChangeId;
    }

    /** Whether the LISTEN connection is up (the bound holds without it, at the cost of polling). */
    public boolean listening() {
        return listening;
    }

    @Override
    public void start() {
        running = true;
        loop = Thread.ofPlatform().name("suppression-cache").daemon(true).start(this::run);
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        abortQuietly(listenConnection);
        if (loop != null) {
            loop.interrupt();
            loop.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    /**
     * Applies every change committed before this call began. The first call loads the current lists whole; later ones
     * read the changes after the last id applied (ids commit in order: SuppressionStore).
     */
    public void catchUp() {
        synchronized (catchUp) {
            long began = System.nanoTime();
            if (!loaded) {
                List<Change> latest = store.latestOfEach();
                long max = 0;
                for (Change c : latest) {
                    apply(c);
                    max = Math.max(max, c.id());
                }
                lastChangeId = max;
                loaded = true;
            } else {
                List<Change> changes;
                do {
                    changes = store.changesAfter(lastChangeId, CATCH_UP_PAGE);
                    for (Change c : changes) {
                        apply(c);
                        lastChangeId = c.id();
                    }
                } while (changes.size() == CATCH_UP_PAGE);
            }
            freshSinceNanos = began;
        }
    }

    private void apply(Change c) {
        if (c.adds()) {
            byTenant.computeIfAbsent(c.tenant(), t -> ConcurrentHashMap.newKeySet())
                    .add(c.recipient());
        } else {
            Set<String> listed = byTenant.get(c.tenant());
            if (listed != null) {
                listed.remove(c.recipient());
            }
        }
    }

    private void run() {
        while (running) {
            try (Connection c = listenSource.getConnection();
                    Statement st = c.createStatement()) {
                listenConnection = c;
                st.execute("LISTEN " + SuppressionStore.CHANNEL);
                listening = true;
                // After LISTEN: a change committed from here on is notified, one committed before is read now.
                catchUpQuietly();
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    // Returns at a notification (a change committed) or after the refresh interval: either way, catch
                    // up.
                    pg.getNotifications((int) Math.max(1, refreshMs));
                    catchUpQuietly();
                }
            } catch (SQLException | RuntimeException e) {
                if (running) {
                    LOG.warn(
                            "suppression listener down; catching up by polling every {} ms until it is back: {}",
                            refreshMs,
                            e.toString());
                }
            } finally {
                listening = false;
                listenConnection = null;
            }
            pollFor(RECONNECT_AFTER);
        }
    }

    /** Without a listener: keeps catching up every refresh interval for {@code period}, then tries to listen again. */
    private void pollFor(Duration period) {
        long until = System.nanoTime() + period.toNanos();
        while (running && System.nanoTime() < until) {
            try {
                Thread.sleep(Math.min(refreshMs, period.toMillis()));
            } catch (InterruptedException e) {
                return;
            }
            catchUpQuietly();
        }
    }

    private void catchUpQuietly() {
        try {
            catchUp();
        } catch (RuntimeException e) {
            // Not swallowed: freshness lapses after maxStaleness and the checks go to the database; logged for
            // operators.
            if (running) {
                LOG.warn("suppression cache catch-up failed (last change applied {}): {}", lastChangeId, e.toString());
            }
        }
    }

    /**
     * Ends the LISTEN connection from another thread: abort closes the socket at once, where close would wait for the
     * loop's getNotifications (up to a third of the bound) to give the connection back.
     */
    private static void abortQuietly(Connection c) {
        if (c != null) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException e) {
                LOG.debug("closing the suppression listener connection: {}", e.toString());
            }
        }
    }
}
