package dev.sendlog.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;
import java.util.ArrayList;
import java.util.List;

/**
 * One route (API.md, "Gateways, routes and limits"): messages whose recipient starts with {@code prefix} (any when
 * absent) and whose tenant is {@code tenant} (any when absent) go to the first of {@code gateways}, and to the next
 * when one certainly did not take them. The first route that matches decides; a message that names its gateway skips
 * routing; a message no route matches goes to {@code defaultGateway}. Checked at start-up ({@code Routes}).
 */
public class RouteSettings {
    @JsonProperty
    public String prefix;

    @JsonProperty
    public String tenant;

    @NotEmpty
    @JsonProperty
    public List<String> gateways = new ArrayList<>();
}
