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

    @Min(1)
    @JsonProperty
    public int connectTimeoutMs = 2_000;

    /** A submit that has not answered by then counts as a transient failure (the provider may still have it). */
    @Min(1)
    @JsonProperty
    public int requestTimeoutMs = 10_000;
}
