package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.OutcomeUnknown;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.StoredEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A gateway without an idempotency key (SMPP, issue 28) is never sent a message twice blind: when a claim on it
 * expires, the worker may have reached it, so the timers make the message UNKNOWN instead of re-driving it. A gateway
 * that takes the key is re-driven as before (the provider drops the repeat).
 */
class AtMostOnceTest {
    private static final Instant T0 = Instant.parse("2026-12-06T08:00:00Z");
    private static final Limits LIMITS =
            new Limits(5, 10, Duration.ofSeconds(30), Duration.ofSeconds(30), Set.of("smsc"));

    private static MessageState claimedOn(String gateway) {
        UUID id = UUID.fromString("0192f3a0-0000-7000-8000-0000000000c1");
        return MessageFold.fold(List.of(
                new StoredEvent(id, 1, T0, "api", new Accepted("demo", gateway)),
                new StoredEvent(id, 3, T0, "worker", new Claimed(1, "worker", T0.plusSeconds(30)))));
    }

    @Test
    void anExpiredClaimOnAGatewayWithoutAnIdempotencyKeyMakesTheMessageUnknown() {
        MessageEvent decided = Decisions.onDeadline(claimedOn("smsc"), T0.plusSeconds(31), LIMITS)
                .orElseThrow();
        assertThat(decided).isInstanceOf(OutcomeUnknown.class);
        assertThat(((OutcomeUnknown) decided).reason()).contains("smsc").contains("not submitted again");
    }

    @Test
    void anExpiredClaimOnAGatewayThatTakesTheKeyIsRedrivenAsBefore() {
        MessageEvent decided = Decisions.onDeadline(claimedOn("sim"), T0.plusSeconds(31), LIMITS)
                .orElseThrow();
        assertThat(decided).isEqualTo(new Redriven(2, RedriveReason.CLAIM_TIMEOUT));
    }
}
