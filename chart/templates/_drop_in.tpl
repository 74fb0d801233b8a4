{{/*
What the drop-in charts (chart/drop-in/*) render through: this chart's own template files, named by
path, with `values` as this chart's values (the drop-in maps its own values onto them), so a part's
objects have one copy. Call from a chart that depends on this one (named `ouroboros`) with
(dict "root" $ "values" $values "files" (list "dns-service.yaml" …)); $ is the drop-in's root. The
drop-in's Release, Chart (its name and appVersion) and Capabilities are used. A template's files
(.Files) are the drop-in's, so a template embedding this chart's files cannot be rendered this way.
*/}}
{{- define "ouroboros.dropIn" -}}
{{- $root := .root -}}
{{- $base := printf "%s/charts/ouroboros/templates" (dir $root.Template.BasePath) -}}
{{- $ctx := dict "Values" .values "Release" $root.Release "Chart" $root.Chart "Capabilities" $root.Capabilities "Files" $root.Files "Template" (dict "BasePath" $base "Name" $root.Template.Name) -}}
{{- range .files }}
{{- $objects := include (printf "%s/%s" $base .) $ctx }}
{{- if trim $objects }}
---
{{ $objects }}
{{- end }}
{{- end }}
{{- end -}}
