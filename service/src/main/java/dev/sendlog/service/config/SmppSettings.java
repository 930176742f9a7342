package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * How a gateway of {@code type: smpp} reaches its SMSC (docs/api.md, "SMPP gateways"): transceiver binds, each with a
 * window of outstanding {@code submit_sm}, kept alive by {@code enquire_link} and bound again with backoff.
 */
public class SmppSettings {
    @NotBlank
    @JsonProperty
    public String host = "127.0.0.1";

    @Min(1)
    @Max(65_535)
    @JsonProperty
    public int port = 2775;

    @NotNull
    @JsonProperty
    public String systemId = "";

    @NotNull
    @JsonProperty
    public String password = "";

    @NotNull
    @JsonProperty
    public String systemType = "";

    /** Transceiver binds this process keeps to the SMSC (SMSCs limit binds per account: every process counts). */
    @Min(1)
    @Max(64)
    @JsonProperty
    public int sessions = 1;

    /** Outstanding {@code submit_sm} per bind: a submit waits for a free slot, at most the gateway's request timeout. */
    @Min(1)
    @Max(1_000)
    @JsonProperty
    public int window = 10;

    @NotNull
    @JsonProperty
    public Duration enquireLinkInterval = Duration.seconds(30);

    /** How long a bind may take; a bind that fails or a session that drops is bound again after a backoff. */
    @NotNull
    @JsonProperty
    public Duration bindTimeout = Duration.seconds(5);

    @NotNull
    @JsonProperty
    public Duration reconnectMin = Duration.milliseconds(250);

    @NotNull
    @JsonProperty
    public Duration reconnectMax = Duration.seconds(30);

    /**
     * How the SMSC writes a message id in its receipts compared with its {@code submit_sm_resp}: {@code as-is} (the
     * same), {@code hex-to-decimal} (the response in hex, receipts in decimal) or {@code decimal-to-hex}. Ids are kept
     * in the receipts' form, so a receipt finds its message whichever form it came in.
     */
    @NotNull
    @Pattern(regexp = "as-is|hex-to-decimal|decimal-to-hex")
    @JsonProperty
    public String idFormat = "as-is";

    /**
     * SMPP has no idempotency key: a {@code submit_sm} without a {@code submit_sm_resp} in time may have been taken, and
     * submitting it again may send the SMS twice. Off (the default), such a message is UNKNOWN and not submitted again;
     * on, it is retried as after any transient failure (for an SMSC known to drop duplicates itself).
     */
    @JsonProperty
    public boolean resubmitAfterTimeout = false;

    /**
     * A body longer than one segment: {@code udh} (the default) sends it as concatenated parts, one {@code submit_sm}
     * each with a user data header, and records each part's message id; {@code payload} sends it whole in the
     * {@code message_payload} TLV (one {@code submit_sm}, one id; the SMSC splits it), for an SMSC that takes it.
     */
    @NotNull
    @Pattern(regexp = "udh|payload")
    @JsonProperty
    public String longMessages = "udh";

    /** The source address of a message that names no sender id (empty: the SMSC's own default for the account). */
    @NotNull
    @JsonProperty
    public String sourceAddress = "";
}
