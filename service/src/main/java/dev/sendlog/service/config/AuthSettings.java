package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.ArrayList;
import java.util.List;

/** API keys from configuration: at start-up every process makes the api_keys table (hashed) equal to them. */
public class AuthSettings {
    /**
     * The keys, stored hashed at start-up; a key removed here is revoked and a changed tenant or role applied. The
     * shipped config has the demo keys, which are printed with a warning.
     */
    @Valid
    @NotNull
    @JsonProperty
    public List<KeySetting> keys = new ArrayList<>();

    /** How long an authenticated key is cached: a key revoked by another process's start-up works here at most this long. */
    @JsonProperty
    public int cacheSeconds = 60;

    public static class KeySetting {
        @NotBlank
        @JsonProperty
        public String key;

        @NotBlank
        @JsonProperty
        public String tenant;

        @NotNull
        @Pattern(regexp = "client|support|admin")
        @JsonProperty
        public String role;

        /** Marks a demo key: printed at start-up with a warning. */
        @JsonProperty
        public boolean demo;
    }
}
