package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;

/** One provider gateway spoken to through the generic HTTP adapter (API.md, provider contract). */
public class GatewaySettings {
    @NotBlank
    @JsonProperty
    public String baseUrl;

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

    /** A submit that has not answered by then counts as a transient failure (the provider may still have it). */
    @Min(1)
    @JsonProperty
    public int requestTimeoutMs = 10_000;
}
