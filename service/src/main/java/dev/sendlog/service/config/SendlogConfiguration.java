package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;

/** Mirrors config.yml. Every bound has a default here and a reason in config.yml. */
public class SendlogConfiguration extends Configuration {
    @Valid
    @NotNull
    @JsonProperty
    public DatabaseSettings database = new DatabaseSettings();

    @Valid
    @NotNull
    @JsonProperty
    public RedisSettings redis = new RedisSettings();

    @Valid
    @NotNull
    @JsonProperty
    public AcceptSettings accept = new AcceptSettings();

    @Valid
    @NotNull
    @JsonProperty
    public PipelineSettings pipeline = new PipelineSettings();

    @Valid
    @NotNull
    @JsonProperty
    public ReceiptSettings receipts = new ReceiptSettings();

    /** Slow clients on the application port: the body's minimum data rate and grace. */
    @Valid
    @NotNull
    @JsonProperty
    public HttpSettings http = new HttpSettings();

    @Valid
    @NotNull
    @JsonProperty
    public HealthSettings alarms = new HealthSettings();

    @Valid
    @NotNull
    @JsonProperty
    public PartitionSettings partitions = new PartitionSettings();

    @Valid
    @NotNull
    @JsonProperty
    public CompactionSettings compaction = new CompactionSettings();

    @Valid
    @NotNull
    @JsonProperty
    public AuthSettings auth = new AuthSettings();

    /** Status webhooks: whether private targets are allowed, and the key their secrets are stored encrypted under. */
    @Valid
    @NotNull
    @JsonProperty
    public WebhookSettings webhooks = new WebhookSettings();

    /** Named adminPort because Dropwizard's own {@code admin} (tasks, health check settings) takes "admin". */
    @Valid
    @NotNull
    @JsonProperty
    public AdminPortSettings adminPort = new AdminPortSettings();

    @Valid
    @NotEmpty
    @JsonProperty
    public Map<String, GatewaySettings> gateways = new LinkedHashMap<>();

    /** Which gateways a message that names none goes to, in order (issue 29); none: every such message to defaultGateway. */
    @Valid
    @NotNull
    @JsonProperty
    public java.util.List<RouteSettings> routes = new java.util.ArrayList<>();

    /** The gateway used when a message names none and no route matches it. */
    @NotBlank
    @JsonProperty
    public String defaultGateway = "sim";

    /** Per tenant: the sender id its messages go out with unless they name one, and the ones they may name. */
    @Valid
    @NotNull
    @JsonProperty
    public Map<String, TenantSettings> tenants = new LinkedHashMap<>();

    /** Which parts of the pipeline this process runs; the per-part commands (api, poller...) override it. */
    @NotNull
    @JsonProperty
    public java.util.Set<Components> components = Components.all();

    /** Folder for the embedded PostgreSQL and local Redis when no server is configured or reachable. */
    @NotBlank
    @JsonProperty
    public String localStateDir = ".data";

    /** How providers reach this service's callback endpoint. */
    @NotBlank
    @JsonProperty
    public String publicBaseUrl = "http://127.0.0.1:8080";

    @AssertTrue(message = "defaultGateway must name one of the configured gateways")
    public boolean isDefaultGatewayConfigured() {
        return gateways.containsKey(defaultGateway);
    }
}
