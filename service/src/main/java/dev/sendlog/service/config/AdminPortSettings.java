package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.ArrayList;
import java.util.List;

/**
 * Who may reach the admin port (API.md, "Admin port"). Its bind host is {@code server.adminConnectors[0].bindHost}
 * ({@code SENDLOG_ADMIN_BIND_HOST}); requests must name it, {@code localhost}, {@code 127.0.0.1} or {@code [::1]}
 * in their Host header, or one of these names.
 */
public class AdminPortSettings {
    /**
     * More names the admin port answers to (a host name, or {@code name:port} behind a port mapping), for when it is
     * reached by a name other than its bind host, e.g. by a monitoring system on another machine.
     */
    @NotNull
    @JsonProperty
    public List<@NotBlank String> allowedHosts = new ArrayList<>();
}
