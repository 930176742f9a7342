package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.sendlog.service.webhooks.SecretBox;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
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

    @JsonIgnore
    @AssertTrue(message = "webhooks.secretKey must be empty or base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)")
    public boolean isSecretKeyWellFormed() {
        return secretKey == null || secretKey.isEmpty() || SecretBox.decodeKey(secretKey) != null;
    }

    /** A warning when the shipped development key is in use, naming the setting and its variable, never the key. */
    public List<String> devKeyWarnings() {
        return DEV_SECRET_KEY.equals(secretKey == null ? null : secretKey.trim())
                ? List.of("DEVELOPMENT WEBHOOK KEY in use: webhooks.secretKey is the value config.yml ships, so the stored webhook "
                        + "secrets are readable by anyone with the database; set SENDLOG_WEBHOOK_SECRET_KEY (base64 of 32 random "
                        + "bytes) before real use")
                : List.of();
    }
}
