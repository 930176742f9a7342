package dev.sendlog.projections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.events.Accepted;
import dev.sendlog.events.AttemptFailed;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Published;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.StoredEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Invariant 18, folded: a message moves to another gateway only from a claim whose gateway certainly did not take it,
 * and never from a gateway that may have it from an earlier claim (an attempt that failed, a claim that expired).
 */
class FailoverFoldTest {
    private static final Instant T0 = Instant.parse("2026-12-05T09:00:00Z");

    private final UUID id = UUID.fromString("0192f3a0-0000-7000-8000-000000000002");
    private final List<StoredEvent> events = new ArrayList<>();

    private MessageState append(MessageEvent event) {
        events.add(new StoredEvent(id, events.size() + 1, T0.plusSeconds(events.size()), "worker-1", event));
        return MessageFold.fold(events);
    }

    private MessageState claimed(int attempt) {
        append(new Published(attempt, 1, T0.plusSeconds(30)));
        return append(new Claimed(attempt, "worker-1", T0.plusSeconds(60)));
    }

    @Test
    void aFailoverOwesTheSameAttemptOnTheNextGatewayAndTheAcceptanceThere() {
        append(new Accepted("demo", "primary"));
        MessageState claimed = claimed(1);
        Redriven moved =
                Decisions.failover(claimed, "backup", "primary: HTTP 503").orElseThrow();
        assertThat(moved.attempt()).isEqualTo(1);
        MessageState after = append(moved);
        assertThat(after.gateway()).isEqualTo("backup");
        assertThat(after.attempt()).isEqualTo(1);
        assertThat(after.status()).isEqualTo(MessageStatus.ACCEPTED);
        assertThat(after.gatewayMayHaveIt()).isFalse();
        MessageState sent = append(new ProviderAccepted(1, "backup", "b-1"));
        assertThat(sent.status()).isEqualTo(MessageStatus.SENT);
    }

    @Test
    void aGatewayWhoseAttemptFailedWithAnUnknownOutcomeKeepsTheMessage() {
        append(new Accepted("demo", "primary"));
        claimed(1);
        append(new AttemptFailed(1, "primary: no answer within 300 ms", T0.plusSeconds(5)));
        append(new Redriven(2, RedriveReason.RETRY_DUE));
        MessageState again = claimed(2);
        assertThat(again.gatewayMayHaveIt()).isTrue();
        assertThat(Decisions.failover(again, "backup", "primary: HTTP 503")).isEmpty();
        assertThatThrownBy(() -> append(Redriven.failedOver(2, "backup", "primary: HTTP 503")))
                .isInstanceOf(InvalidTransitionException.class)
                .hasMessageContaining("invariant 18");
    }

    @Test
    void aClaimThatExpiredMayHaveReachedTheGatewaySoTheMessageStays() {
        append(new Accepted("demo", "primary"));
        claimed(1);
        append(new Redriven(2, RedriveReason.CLAIM_TIMEOUT));
        MessageState again = claimed(2);
        assertThat(Decisions.failover(again, "backup", "primary: connection refused"))
                .isEmpty();
    }

    @Test
    void aClaimHandedBackBeforeItsCallLeavesTheFailoverOpen() {
        append(new Accepted("demo", "primary"));
        claimed(1);
        append(new Redriven(1, RedriveReason.HANDED_BACK));
        MessageState again = claimed(1);
        assertThat(Decisions.failover(again, "backup", "primary: connection refused"))
                .isPresent();
    }

    @Test
    void theNewGatewayIsHeldToTheSameRuleAndNoMessageMovesToWhereItIs() {
        append(new Accepted("demo", "primary"));
        claimed(1);
        append(Redriven.failedOver(1, "backup", "primary: HTTP 503"));
        MessageState onBackup = claimed(1);
        assertThat(Decisions.failover(onBackup, "backup", "x"))
                .as("not to itself")
                .isEmpty();
        append(new AttemptFailed(1, "backup: connection reset", T0.plusSeconds(5)));
        append(new Redriven(2, RedriveReason.RETRY_DUE));
        assertThat(Decisions.failover(claimed(2), "third", "backup: HTTP 503")).isEmpty();
    }

    @Test
    void onlyAClaimedAttemptFailsOver() {
        MessageState pending = append(new Accepted("demo", "primary"));
        assertThat(Decisions.failover(pending, "backup", "primary: HTTP 503")).isEmpty();
    }
}
