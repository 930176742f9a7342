package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;

/**
 * What a tenant sends as (issue 26): {@code defaultSender}, the sender id of its messages that name none, and
 * {@code senders}, when not empty, the only sender ids its messages may name. Checked at start-up (SenderPolicy).
 */
public class TenantSettings {
    @JsonProperty
    public String defaultSender;

    @NotNull
    @JsonProperty
    public List<String> senders = new ArrayList<>();
}
