{{/* The chart's name. */}}
{{- define "trace.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name: RELEASE-trace, or RELEASE when it already says trace. */}}
{{- define "trace.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* The headless Service, the CPU workers' Deployment and its PDB. */}}
{{- define "trace.workers" -}}
{{- printf "%s-workers" (include "trace.fullname" .) }}
{{- end }}

{{/* The Secret with the token (and the TLS files). */}}
{{- define "trace.secretName" -}}
{{- default (include "trace.fullname" .) .Values.existingSecret }}
{{- end }}

{{/* What `trace render --workers` dials: every address of the headless Service. */}}
{{- define "trace.workersTarget" -}}
{{- printf "dns:///%s.%s.svc.cluster.local:%d" (include "trace.workers" .) .Release.Namespace (int .Values.port) }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "trace.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "trace.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The labels the Service selects: every worker, CPU or GPU. */}}
{{- define "trace.workerSelectorLabels" -}}
app.kubernetes.io/name: {{ include "trace.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: worker
{{- end }}

{{/*
The pod spec of a worker pool, shared by the CPU and GPU Deployments.
Call with (dict "root" $ "pool" .Values.workers "image" "repo:tag" "gpus" N "name" "cpu").
*/}}
{{- define "trace.workerPod" -}}
{{- $root := .root }}
{{- $pool := .pool }}
{{- $v := $root.Values }}
metadata:
  labels:
    {{- include "trace.labels" $root | nindent 4 }}
    app.kubernetes.io/component: worker
    pool: {{ .name }}
  annotations:
    checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
    {{- if $v.metrics.enabled }}
    prometheus.io/scrape: "true"
    prometheus.io/port: {{ $v.metrics.port | quote }}
    prometheus.io/path: /metrics
    {{- end }}
    {{- with $pool.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  terminationGracePeriodSeconds: {{ $pool.terminationGracePeriodSeconds }}
  {{- with $v.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    runAsNonRoot: true
    runAsUser: 65532
    runAsGroup: 65532
    seccompProfile:
      type: RuntimeDefault
  topologySpreadConstraints:
    - maxSkew: 1
      topologyKey: kubernetes.io/hostname
      whenUnsatisfiable: ScheduleAnyway
      labelSelector:
        matchLabels:
          {{- include "trace.workerSelectorLabels" $root | nindent 10 }}
          pool: {{ .name }}
  {{- with $pool.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $pool.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $pool.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: worker
      image: {{ .image | quote }}
      imagePullPolicy: {{ $v.image.pullPolicy }}
      args:
        - worker
        - --listen
        - {{ printf ":%d" (int $v.port) | quote }}
        {{- if gt (int .gpus) 0 }}
        - --gpus
        - {{ .gpus | quote }}
        {{- end }}
        - --threads
        {{- if gt (int $pool.threads) 0 }}
        - {{ $pool.threads | quote }}
        {{- else }}
        - $(TRACE_THREADS)
        {{- end }}
        - --cache-bytes
        - {{ $pool.cacheBytes | int64 | quote }}
        {{- if $v.metrics.enabled }}
        - --metrics
        - {{ printf "0.0.0.0:%d" (int $v.metrics.port) | quote }}
        {{- end }}
        {{- if $v.tls.enabled }}
        - --tls-cert
        - /etc/trace/tls/tls.crt
        - --tls-key
        - /etc/trace/tls/tls.key
        {{- if $v.tls.mutual }}
        - --tls-client-ca
        - /etc/trace/tls/ca.crt
        {{- end }}
        {{- end }}
        - --log-format
        - json
        {{- range $pool.extraArgs }}
        - {{ . | quote }}
        {{- end }}
      env:
        - name: TRACE_TOKEN
          valueFrom:
            secretKeyRef:
              name: {{ include "trace.secretName" $root }}
              key: token
        - name: TRACE_THREADS
          valueFrom:
            resourceFieldRef:
              containerName: worker
              resource: requests.cpu
              divisor: "1"
      ports:
        - name: grpc
          containerPort: {{ $v.port }}
        {{- if $v.metrics.enabled }}
        - name: metrics
          containerPort: {{ $v.metrics.port }}
        {{- end }}
      {{- /* The kubelet's gRPC probe speaks no TLS: with TLS, a TCP check. */}}
      readinessProbe:
        {{- if $v.tls.enabled }}
        tcpSocket:
          port: {{ $v.port }}
        {{- else }}
        grpc:
          port: {{ $v.port }}
        {{- end }}
        periodSeconds: 5
      livenessProbe:
        {{- if $v.tls.enabled }}
        tcpSocket:
          port: {{ $v.port }}
        {{- else }}
        grpc:
          port: {{ $v.port }}
        {{- end }}
        initialDelaySeconds: 10
        periodSeconds: 20
        failureThreshold: 3
      resources:
        {{- $res := deepCopy $pool.resources }}
        {{- if gt (int .gpus) 0 }}
        {{- $limits := default dict (get $res "limits") }}
        {{- $_ := set $limits "nvidia.com/gpu" (int .gpus) }}
        {{- $_ := set $res "limits" $limits }}
        {{- end }}
        {{- toYaml $res | nindent 8 }}
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities:
          drop: ["ALL"]
      {{- if $v.tls.enabled }}
      volumeMounts:
        - name: tls
          mountPath: /etc/trace/tls
          readOnly: true
      {{- end }}
  {{- if $v.tls.enabled }}
  volumes:
    - name: tls
      secret:
        secretName: {{ include "trace.secretName" $root }}
        items:
          - key: tls.crt
            path: tls.crt
          - key: tls.key
            path: tls.key
          - key: ca.crt
            path: ca.crt
  {{- end }}
{{- end }}
