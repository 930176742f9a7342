package dev.sendlog.service.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import dev.sendlog.simulator.ReceiptMode;
import dev.sendlog.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The shutdown sequence's order in one process (issue 24, item 9; invariant 20): stopped while one provider call is in
 * flight and seven claimed jobs wait for a call slot, it lets the call finish and record its acceptance, hands the
 * others back without calling the provider, gives its shards back, and only then closes its pools: no "cannot get a
 * connection", every lease released. Started again, it sends them (each once) with no claim deadline involved.
 */
class ShutdownSequenceTest {
    private static final SimulatorConfig SLOW = SimulatorConfig.defaults().toBuilder()
            .latencyMs(1500)
            .receiptMode(ReceiptMode.NONE)
            .build();
    private static final int CALL_SLOTS = 1;
    private static final int JOBS_PER_SLOT = 8;

    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness(
                    "pipeline.sendWorker.concurrency",
                    Integer.toString(CALL_SLOTS),
                    "pipeline.sendWorker.jobsPerCallSlot",
                    Integer.toString(JOBS_PER_SLOT),
                    // No deadline of the test clock's may pass in this test: whatever moves, moves by the hand-over.
                    "pipeline.claimTimeout",
                    "10m",
                    "pipeline.confirmTimeout",
                    "10m")
            .simulator(SLOW);

    @Test
    void inFlightCallsFinishClaimedJobsAreHandedBackAndLeasesAreReleasedBeforeThePoolsClose() throws Exception {
        List<String> ids = Messages.submit(SERVICE, 12);
        // One job calls the provider, seven hold claims while waiting for the one call slot, four wait on the stream.
        Messages.awaitCount(
                SERVICE,
                "SELECT count(*) FROM message_events WHERE type = 3",
                CALL_SLOTS * JOBS_PER_SLOT,
                Duration.ofSeconds(60));
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM shard_leases WHERE owner IS NOT NULL"))
                .isPositive();

        Recorded log = Recorded.attach();
        try {
            SERVICE.stop();
        } finally {
            log.detach();
        }

        List<String> lines = log.lines();
        List<String> stages = lines.stream()
                .filter(l -> l.startsWith("shutdown stage"))
                .map(l -> l.substring(0, l.indexOf(" took")))
                .toList();
        assertThat(stages)
                .containsExactly(
                        "shutdown stage \"intake closed\"",
                        "shutdown stage \"shards and slot released\"",
                        "shutdown stage \"claiming stopped\"",
                        "shutdown stage \"provider calls finished\"",
                        "shutdown stage \"pools closed\"");
        assertThat(lines)
                .noneMatch(l -> l.contains("cannot get a connection")
                        || l.contains("releasing shards at shutdown failed")
                        || l.contains("stage") && l.contains("failed"));
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM shard_leases WHERE owner IS NOT NULL"))
                .as("leases still held after the stop")
                .isZero();
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM pollers"))
                .as("its heartbeat row is gone")
                .isZero();

        // The reader stops after its current read: a call slot freed meanwhile may have let one more call begin.
        long claims = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM message_events WHERE type = 3");
        long accepted = Messages.providerAccepted(SERVICE);
        long handedBack =
                Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM message_events WHERE type = 7 AND code = 5");
        assertThat(accepted)
                .as("the calls in flight finished and their acceptances were recorded")
                .isPositive();
        assertThat(handedBack)
                .as("claimed but not called: handed back")
                .isPositive()
                .isEqualTo(claims - accepted);
        assertThat(SERVICE.simulator().keys())
                .as("nothing handed back reached the provider")
                .hasSize((int) accepted);
        assertThat(Sql.count(SERVICE.dataSource(), """
                SELECT count(*) FROM messages m WHERE (SELECT e.type FROM message_events e WHERE e.message_id = m.id
                                                        ORDER BY e.seq DESC LIMIT 1) = 3""")).as("left claimed").isZero();

        SERVICE.simulator().updateConfig(SLOW.toBuilder().latencyMs(5).build());
        SERVICE.start();
        Messages.awaitCount(
                SERVICE,
                "SELECT count(DISTINCT message_id) FROM message_events WHERE type = 4",
                ids.size(),
                Duration.ofSeconds(60));
        assertThat(Messages.charged(SERVICE, ids)).isEqualTo(ids.size());
        assertThat(SERVICE.simulator().keys()).as("each sent once").hasSize(ids.size());
        assertThat(Sql.count(
                        SERVICE.dataSource(), "SELECT count(*) FROM message_events WHERE type = 7 AND code IN (2, 3)"))
                .as("re-driven by a deadline")
                .isZero();
    }

    /** The formatted messages of sendlog's loggers while attached (attached after the start: Dropwizard resets logging). */
    private static final class Recorded extends AppenderBase<ILoggingEvent> {
        private final List<String> lines = new ArrayList<>();

        static Recorded attach() {
            Recorded r = new Recorded();
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            r.setContext(context);
            r.start();
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(r);
            return r;
        }

        void detach() {
            ((LoggerContext) LoggerFactory.getILoggerFactory())
                    .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
                    .detachAppender(this);
            stop();
        }

        @Override
        protected synchronized void append(ILoggingEvent e) {
            lines.add(e.getFormattedMessage());
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }
    }
}
