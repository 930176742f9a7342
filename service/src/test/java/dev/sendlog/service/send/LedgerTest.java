package dev.sendlog.service.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Shards;
import dev.sendlog.service.log.Charge;
import dev.sendlog.service.log.EventAppender;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.NewEvent;
import dev.sendlog.service.support.Messages;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Invariant 3, one effect, one key: the charge is written through the send path, then again through another
 * path that records an acceptance (as recovery does), and there is still one ledger row: every path keys it
 * with EffectKeys.charge, and the unique constraint refuses the second, counted.
 */
class LedgerTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    @Test
    void aSecondPathRecordingTheSameAcceptanceCannotChargeTwice() throws Exception {
        String id = Messages.submitOne(SERVICE, Messages.recipient());
        Messages.awaitStatus(SERVICE, id, "SENT", Duration.ofSeconds(30));
        assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);

        MetricRegistry metrics = new MetricRegistry();
        EventAppender recovery = new EventAppender(
                DSL.using(SERVICE.dataSource(), SQLDialect.POSTGRES),
                EventStore.of(SERVICE.dataSource()),
                1,
                metrics,
                "recovery-append");
        recovery.start();
        try {
            UUID messageId = UUID.fromString(id);
            int nextSeq = (int) Sql.count(
                            SERVICE.dataSource(), "SELECT max(seq) FROM message_events WHERE message_id = '" + id + "'")
                    + 1;
            String providerId = SERVICE.api()
                    .get("/v1/messages/" + id, "client-a")
                    .json()
                    .get("providerId")
                    .asText();
            NewEvent again = new NewEvent(
                    messageId,
                    nextSeq,
                    Shards.of(messageId, 4),
                    "recovery",
                    SERVICE.now(),
                    new ProviderAccepted(2, "sim", providerId));
            recovery.append(List.of(again), new Charge(messageId, 1, SERVICE.now()));
        } finally {
            recovery.stop();
        }
        assertThat(Messages.ledgerRows(SERVICE, id)).isEqualTo(1);
        assertThat(metrics.counter("ledger.duplicates.refused").getCount()).isEqualTo(1);
    }
}
