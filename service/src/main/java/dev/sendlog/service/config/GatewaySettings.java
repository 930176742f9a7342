package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One provider gateway: spoken to through the generic HTTP adapter (API.md, provider contract) or, with {@code type:
 * smpp}, over SMPP 3.4 binds to an SMSC ({@link SmppSettings}).
 */
public class GatewaySettings {
    /** The values config.yml ships for the demo gateway and its simulator: known to anyone who read the file. */
    public static final String DEMO_TOKEN = "sim-token";

    public static final String DEMO_CALLBACK_SECRET = "sim-secret";

    /** The SMSC simulator's default password, which config.yml ships for the demo SMPP gateway. */
    public static final String DEMO_SMPP_PASSWORD = "secret";

    /** {@code http} (the provider contract over HTTP, the default) or {@code smpp}. */
    @NotNull
    @jakarta.validation.constraints.Pattern(regexp = "http|smpp")
    @JsonProperty
    public String type = "http";

    /** The provider's address; required for {@code type: http}. */
    @JsonProperty
    public String baseUrl;

    /** The SMSC and its binds; required for {@code type: smpp}. */
    @jakarta.validation.Valid
    @JsonProperty
    public SmppSettings smpp;

    public boolean isSmpp() {
        return "smpp".equals(type);
    }

    /** An HTTP gateway names its baseUrl, an SMPP one its SMSC; neither answers status queries over the other. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    @jakarta.validation.constraints.AssertTrue(
            message = "an http gateway needs a baseUrl, an smpp gateway an smpp block, and statusQuery is http only")
    public boolean isComplete() {
        return isSmpp() ? smpp != null && !statusQuery : baseUrl != null && !baseUrl.isBlank();
    }

    @NotNull
    @JsonProperty
    public String token = "";

    /** HMAC-SHA256 secret the provider signs callbacks with. */
    @NotNull
    @JsonProperty
    public String callbackSecret = "";

    /** Status vocabulary and timestamp format of its callbacks: {@code smpp} or {@code json}. */
    @NotBlank
    @JsonProperty
    public String vocabulary = "smpp";

    /** Extra or overriding status words of this gateway: provider status to INTERMEDIATE, DELIVERED, UNDELIVERED or UNKNOWN. */
    @NotNull
    @JsonProperty
    public java.util.Map<String, String> statusMap = new java.util.LinkedHashMap<>();

    @Min(1)
    @JsonProperty
    public int connectTimeoutMs = 2_000;

    /**
     * One warning per shipped demo value a gateway still uses, naming the setting and the environment variable that
     * config.yml reads for it; never the value itself. Anyone holding the demo callback secret can sign receipts.
     */
    public static List<String> demoValueWarnings(Map<String, GatewaySettings> gateways) {
        List<String> warnings = new ArrayList<>();
        new TreeMap<>(gateways).forEach((name, g) -> {
            String env = name.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
            if (DEMO_TOKEN.equals(g.token)) {
                warnings.add(
                        "DEMO GATEWAY TOKEN in use: gateways." + name + ".token is the value config.yml ships; set "
                                + "SENDLOG_GATEWAY_" + env + "_TOKEN (or the setting) before real use");
            }
            if (g.isSmpp() && g.smpp != null && DEMO_SMPP_PASSWORD.equals(g.smpp.password)) {
                warnings.add("DEMO SMPP PASSWORD in use: gateways." + name + ".smpp.password is the value config.yml "
                        + "ships; set SENDLOG_SMPP_" + env + "_PASSWORD (or the setting) before real use");
            }
            if (DEMO_CALLBACK_SECRET.equals(g.callbackSecret)) {
                warnings.add("DEMO CALLBACK SECRET in use: gateways." + name
                        + ".callbackSecret is the value config.yml ships, "
                        + "so anyone can sign callbacks; set SENDLOG_CALLBACK_" + env
                        + "_SECRET (or the setting) before real use");
            }
        });
        return warnings;
    }

    /**
     * The gateway answers API.md's status query ({@code GET {baseUrl}/v1/submit/{Idempotency-Key}}): the reconciler asks
     * it about messages without a final receipt, and a retry after a lost submit answer asks it before submitting again.
     * Off by default: a provider without the endpoint would answer 404, which reads as "never taken".
     */
    @JsonProperty
    public boolean statusQuery = false;

    /**
     * Status queries per second to this gateway at most, across every process (a token bucket in Redis that every
     * reconciler shares), separate from its sends: the reconciler waits for this rate, and never takes the send
     * workers' connections, permits or rate. While Redis is unreachable each process keeps to {@code fallbackShare} of it.
     */
    @Min(1)
    @JsonProperty
    public int queriesPerSecond = 20;

    /**
     * The gateway's contracted rate in parts per second, across every send-worker process (a token bucket they share in
     * Redis); 0: no limit of ours. A message of n parts takes n.
     */
    @Min(0)
    @JsonProperty
    public int maxPerSecond = 0;

    /** After a 429, the rate is this share of {@code maxPerSecond} for {@code throttleFor} (or the Retry-After, if longer). */
    @jakarta.validation.constraints.DecimalMin("0.01")
    @jakarta.validation.constraints.DecimalMax("1.0")
    @JsonProperty
    public double throttledShare = 0.5;

    @NotNull
    @JsonProperty
    public io.dropwizard.util.Duration throttleFor = io.dropwizard.util.Duration.seconds(10);

    /**
     * While Redis cannot be reached, each send-worker process keeps to this share of {@code maxPerSecond} on its own: a
     * lower rate, never none. With n processes, at most n times this share goes out; set it to 1/n or below.
     */
    @jakarta.validation.constraints.DecimalMin("0.01")
    @jakarta.validation.constraints.DecimalMax("1.0")
    @JsonProperty
    public double fallbackShare = 0.25;

    /**
     * After this many submits in a row that failed (any transient answer, a refused connection, a timeout), this process
     * marks the gateway down: routed messages that may still leave it pass to their route's next gateway without calling
     * it, for {@code probeAfter}; then one submit probes it, and a success marks it up again. 0: never marked down.
     */
    @Min(0)
    @JsonProperty
    public int downAfterFailures = 5;

    @NotNull
    @JsonProperty
    public io.dropwizard.util.Duration probeAfter = io.dropwizard.util.Duration.seconds(10);

    /** A submit that has not answered by then counts as a transient failure (the provider may still have it). */
    @Min(1)
    @JsonProperty
    public int requestTimeoutMs = 10_000;
}
