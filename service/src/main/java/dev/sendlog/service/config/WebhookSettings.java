package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.Base64;
import java.util.List;

/** Status webhooks (API.md, "Status webhooks"; issue 27): where they may point and the key their secrets are stored under. */
public class WebhookSettings {
    /**
     * The development key config.yml ships (base64 of "DEV-ONLY sendlog webhook key 32b"): known to anyone who read the
     * file, so secrets stored under it are as good as plain text. Warned about at start-up.
     */
    public static final String DEV_SECRET_KEY = "REVWLU9OTFkgc2VuZGxvZyB3ZWJob29rIGtleSAzMmI=";

    /**
     * Loopback, private, link-local and metadata targets are refused unless this is true. False here, so a config that
     * says nothing is safe; config.yml (the local demo, whose receivers run on this machine) and the tests set it true.
     */
    @JsonProperty
    public boolean allowPrivateTargets = false;

    /**
     * Base64 of the 32-byte AES-256-GCM key webhook signing secrets are stored encrypted under (env
     * SENDLOG_WEBHOOK_SECRET_KEY in config.yml). Empty: the API does not start. Changing it makes the stored secrets
     * unreadable (there is no re-encryption yet): their tenants must register again.
     */
    @NotNull
    @JsonProperty
    public String secretKey = "";

    /** Deliveries in flight at most in one webhook-worker process: the job type's own bound, apart from every other's. */
    @Min(1)
    @Max(10_000)
    @JsonProperty
    public int concurrency = 64;

    /**
     * Deliveries in flight to one endpoint at most. An endpoint that answers slowly or not at all holds this many of
     * {@code concurrency}, never more, so the others' deliveries go on.
     */
    @Min(1)
    @Max(1_000)
    @JsonProperty
    public int perEndpointConcurrency = 4;

    /**
     * Deliveries of one endpoint waiting in memory for one of its slots; beyond this they are left on the stream (no
     * permit held) and come back when reclaimed or when their lease ends.
     */
    @Min(0)
    @Max(100_000)
    @JsonProperty
    public int perEndpointQueue = 1000;

    /** How long an attempt waits for the endpoint's answer (API.md: 10 s); a longer wait is a failed attempt. */
    @NotNull
    @JsonProperty
    public Duration timeout = Duration.seconds(10);

    @NotNull
    @JsonProperty
    public Duration connectTimeout = Duration.seconds(5);

    /** The first retry's wait; each later one doubles, up to {@code maxRetryWait} (API.md: 1 s doubling to 1 h). */
    @NotNull
    @JsonProperty
    public Duration firstRetryWait = Duration.seconds(1);

    @NotNull
    @JsonProperty
    public Duration maxRetryWait = Duration.hours(1);

    /** How long a delivery is retried before it is DEAD (API.md: 24 h), from its event or from its re-drive. */
    @NotNull
    @JsonProperty
    public Duration retryFor = Duration.hours(24);

    /**
     * How long a delivery put on the webhook stream stays leased to its job: a job lost with a crashed worker or an
     * emptied Redis is put on the stream again when this has passed. Above {@code timeout}, with room for a wait.
     */
    @NotNull
    @JsonProperty
    public Duration leaseTimeout = Duration.seconds(60);

    /** How often the dispatcher looks for deliveries that are due, when the last look found less than a batch. */
    @NotNull
    @JsonProperty
    public Duration dispatchEvery = Duration.milliseconds(200);

    @Min(1)
    @Max(10_000)
    @JsonProperty
    public int dispatchBatch = 500;

    /** Delivered deliveries (and their attempts) are deleted this long after delivery; dead ones stay until re-driven. */
    @NotNull
    @JsonProperty
    public Duration keepDelivered = Duration.days(7);

    /** The health check {@code webhooks} raises its alarm (never failing) while the oldest owed delivery has been owed longer than this. */
    @NotNull
    @JsonProperty
    public Duration maxOwedAge = Duration.minutes(15);

    @JsonIgnore
    @AssertTrue(message = "webhooks.leaseTimeout must be longer than webhooks.timeout plus webhooks.connectTimeout")
    public boolean isLeaseLongerThanAnAttempt() {
        return leaseTimeout.toMilliseconds() > timeout.toMilliseconds() + connectTimeout.toMilliseconds();
    }

    @JsonIgnore
    @AssertTrue(
            message = "webhooks.secretKey must be empty or base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)")
    public boolean isSecretKeyWellFormed() {
        return secretKey == null || secretKey.isEmpty() || decodeSecretKey(secretKey) != null;
    }

    /** The length of {@code secretKey} once decoded: an AES-256 key. */
    public static final int SECRET_KEY_BYTES = 32;

    /** The key's bytes, or null when the text is not base64 (standard or url alphabet) of exactly 32 bytes. */
    public static byte[] decodeSecretKey(String base64Key) {
        if (base64Key == null) {
            return null;
        }
        String text = base64Key.trim();
        for (Base64.Decoder decoder : new Base64.Decoder[] {Base64.getDecoder(), Base64.getUrlDecoder()}) {
            try {
                byte[] key = decoder.decode(text);
                if (key.length == SECRET_KEY_BYTES) {
                    return key;
                }
            } catch (IllegalArgumentException notThisAlphabet) {
                // try the other
            }
        }
        return null;
    }

    /** A warning when the shipped development key is in use, naming the setting and its variable, never the key. */
    public List<String> devKeyWarnings() {
        return DEV_SECRET_KEY.equals(secretKey == null ? null : secretKey.trim())
                ? List.of(
                        "DEVELOPMENT WEBHOOK KEY in use: webhooks.secretKey is the value config.yml ships, so the stored webhook "
                                + "secrets are readable by anyone with the database; set SENDLOG_WEBHOOK_SECRET_KEY (base64 of 32 random "
                                + "bytes) before real use")
                : List.of();
    }
}
