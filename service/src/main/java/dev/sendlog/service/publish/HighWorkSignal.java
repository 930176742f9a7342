package dev.sendlog.service.publish;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.db.LaneLayout;
import io.dropwizard.lifecycle.Managed;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the high lane's poller when high work commits, instead of a read of the tail every {@code idlePollMs}. An accept
 * that writes a high message sends {@code NOTIFY sendlog_high_work} in its own transaction (delivered at commit, never
 * for a rollback, and after the row is visible); the poller process LISTENs on one connection of its own and the
 * poller waits for a notification or {@code highIdlePollMs}, whichever comes first. Measured with a JFR profile of
 * {@code scripts/bench} at C=16 (2026-12-04), the high poller's reads every 20 ms with no high message at all took 2.2%
 * of the service's CPU samples, besides PostgreSQL's side of 50 queries a second.
 *
 * <p>The slow poll stays: work that no accept announces (a retry's or a scheduled send's REDRIVEN, written by the
 * timers) is found within {@code highIdlePollMs}, and while the listener is down (a restarted database) the poller
 * reads every {@code idlePollMs} as before, so a lost notification costs latency, never work.
 */
public final class HighWorkSignal implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(HighWorkSignal.class);
    private static final Duration RECONNECT_AFTER = Duration.ofSeconds(1);

    private final DataSource listenSource;
    private final int fallbackMs;
    private final int unheardMs;
    private final Semaphore signals = new Semaphore(0);
    private final Counter woken;
    private volatile boolean running;
    private volatile boolean listening;
    private volatile Connection listenConnection;
    private Thread loop;

    /**
     * @param listenSource an unpooled source for the long-lived LISTEN connection (counted in the pool budget)
     * @param fallbackMs   the longest wait while listening ({@code pipeline.highIdlePollMs})
     * @param unheardMs    the wait while not listening ({@code pipeline.idlePollMs})
     */
    public HighWorkSignal(DataSource listenSource, int fallbackMs, int unheardMs, MetricRegistry metrics) {
        this.listenSource = listenSource;
        this.fallbackMs = fallbackMs;
        this.unheardMs = unheardMs;
        this.woken = metrics.counter("poller.high.woken");
        metrics.registerGauge("poller.high.listening", () -> listening ? 1 : 0);
    }

    /**
     * Waits for high work: returns at a notification (one that came while the poller was reading counts: nothing is
     * missed between a read and this wait) or after the fallback interval.
     */
    public void await() throws InterruptedException {
        if (!listening) {
            Thread.sleep(unheardMs);
            return;
        }
        if (signals.tryAcquire(fallbackMs, TimeUnit.MILLISECONDS)) {
            signals.drainPermits(); // several commits announced during one read: one more read covers them all
            woken.inc();
        }
    }

    public boolean listening() {
        return listening;
    }

    @Override
    public void start() {
        running = true;
        loop = Thread.ofPlatform().name("high-work-listener").daemon(true).start(this::run);
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        Connection c = listenConnection;
        if (c != null) {
            try {
                c.abort(Runnable::run); // a getNotifications in progress returns at once
            } catch (SQLException e) {
                LOG.debug("closing the high work listener: {}", e.toString());
            }
        }
        if (loop != null) {
            loop.interrupt();
            loop.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    private void run() {
        while (running) {
            try (Connection c = listenSource.getConnection();
                    Statement st = c.createStatement()) {
                listenConnection = c;
                st.execute("LISTEN " + LaneLayout.HIGH_WORK_CHANNEL);
                listening = true;
                signals.release(); // work committed before LISTEN was not announced to us: read once now
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    var notes = pg.getNotifications(1000);
                    if (notes != null && notes.length > 0) {
                        signals.release();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (running) {
                    LOG.warn(
                            "high work listener down; the high poller reads every {} ms until it is back: {}",
                            unheardMs,
                            e.toString());
                }
            } finally {
                listening = false;
                listenConnection = null;
                signals.release(); // a waiting poller goes back to reading at the short interval now
            }
            try {
                Thread.sleep(RECONNECT_AFTER);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
