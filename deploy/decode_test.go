// Package deploy holds the Kubernetes manifests and the Helm chart that run
// trace workers on a cluster, and the tests that check them offline.
package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// scheme knows the kinds a trace deployment may contain; any other
// apiVersion/kind is an error.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// strict decodes YAML or JSON into the typed object its apiVersion and kind
// name, and fails on a field the type does not have (field names are case
// sensitive) and on a field given twice: the checks `kubectl apply
// --validate=strict` makes on the server.
var strict = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
	json.SerializerOptions{Yaml: true, Strict: true})

// document is one YAML document of a file.
type document struct {
	source string // file name, and the document's index in it
	object runtime.Object
}

// decodeAll splits a multi-document YAML stream and decodes each non-empty
// document strictly.
func decodeAll(name string, data []byte) ([]document, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []document
	for i := 0; ; i++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
		}
		if isEmpty(raw) {
			continue
		}
		source := fmt.Sprintf("%s[%d]", name, i)
		obj, _, err := strict.Decode(raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		docs = append(docs, document{source, obj})
	}
}

// isEmpty reports whether a YAML document holds only comments and blanks
// (Helm leaves such documents where a template is switched off).
func isEmpty(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) {
			return false
		}
	}
	return true
}
