/* Editor helpers shared by every smsgw node's dialog. Plain ES2018, no build: Node-RED serves this file at
 * resources/@smsgw/node-red-sms-gateway/editor.js and every node's HTML loads it before its own script.
 * Each node set loads it, so it is defined once and the first definition (with its catalogue cache) is kept. */
/* global $, RED, window, document, setTimeout, clearTimeout */
window.smsgwEditor = window.smsgwEditor || (function () {
    var cataloguePromise = null;
    var COMMON = ['msg', 'flow', 'global', 'env', 'jsonata'];

    function catalogue() {
        if (!cataloguePromise) {
            cataloguePromise = $.getJSON('smsgw/operations').fail(function () {
                cataloguePromise = null;
            });
        }
        return cataloguePromise;
    }

    function typesFor(param) {
        var t = param.type;
        if (param.choices) {
            // A list of the values the spec names, where it does not close the list: the parameter's own
            // type stays offered for any other code (the legacy SmsTyp: 1 and 18 named, the rest "not shown").
            var own = t === 'int' || t === 'double' ? 'num' : 'str';
            return [{ value: 'enum', label: param.label || t, options: param.choices }, own].concat(COMMON);
        }
        if (param.values) {
            return [{ value: 'enum', label: t, options: param.values }].concat(COMMON);
        }
        if (t === 'int' || t === 'double') { return ['num'].concat(COMMON); }
        if (t === 'boolean') { return ['bool'].concat(COMMON); }
        if (t === 'dateTime') { return ['str', 'date'].concat(COMMON); }
        if (t === 'base64Binary') { return ['str', 'bin'].concat(COMMON); }
        if (/\[\]$/.test(t)) { return ['str', 'json'].concat(COMMON); }
        return ['str'].concat(COMMON);
    }

    function typed(id, types, def) {
        var field = $('#node-input-' + id);
        field.typedInput({ default: def || types[0], types: types, typeField: '#node-input-' + id + 'Type' });
        return field;
    }

    /** A node's own message for key, or undefined when its locale has none (RED._ then answers the key). */
    function ownText(nodeType, key) {
        if (!nodeType) { return undefined; }
        var full = '@smsgw/node-red-sms-gateway/' + nodeType + ':' + nodeType + '.' + key;
        var text = RED._(full);
        return text && text !== full && text !== nodeType + '.' + key ? text : undefined;
    }

    // One typedInput row per parameter of the chosen operation; rows keep values across operations. A node
    // whose locale names its parameters (param.<Name>, placeholder.<Name>, choice.<Name>.<value>) shows those
    // words; the API name stays in the label's tooltip.
    function paramRows(container, op, values, nodeType) {
        container.empty();
        if (!op) { return; }
        op.params.forEach(function (p, i) {
            var row = $('<div class="form-row"></div>').appendTo(container);
            var label = ownText(nodeType, 'param.' + p.name);
            $('<label></label>').attr('for', 'smsgw-param-' + i).text(label || p.name)
                .attr('title', (label ? p.name + ': ' : '') + (p.doc || p.type)).appendTo(row);
            var placeholder = ownText(nodeType, 'placeholder.' + p.name);
            if (placeholder === undefined) { placeholder = p.optional ? p.type + ' (optional)' : p.type; }
            var input = $('<input type="text" style="width:70%">').attr('id', 'smsgw-param-' + i)
                .attr('data-param', p.name).attr('placeholder', placeholder).appendTo(row);
            if (p.choices) {
                // "not set" first, so an untouched row stays blank (the runtime's default applies)
                p = $.extend({}, p, { label: label || p.name, choices: [{ value: '', label: ownText(nodeType, 'choice.none') || '-' }]
                    .concat(p.choices.map(function (c) {
                        var note = ownText(nodeType, 'choice.' + p.name + '.' + c.value);
                        return { value: c.value, label: c.label + (note ? ' ' + note : '') };
                    })) });
            }
            var types = typesFor(p);
            var allowed = types.map(function (t) { return typeof t === 'string' ? t : t.value; });
            var stored = values[p.name] || p.default || { value: '', type: allowed[0] };
            // A default shown but not chosen is not saved: the runtime applies the same default, and an
            // untouched dialog must not mark the flow as changed.
            if (!values[p.name] && p.default) { input.attr('data-default', JSON.stringify(p.default)); }
            if (allowed.indexOf(stored.type) < 0) {
                // A row kept from another operation whose parameter had another type (e.g. str -> int).
                stored = { value: stored.value, type: allowed[0] };
            }
            input.typedInput({ types: types, default: stored.type });
            input.typedInput('type', stored.type);
            input.typedInput('value', stored.value);
        });
    }

    function collectParams(container, values) {
        var out = $.extend({}, values);
        container.find('input[data-param]').each(function () {
            var input = $(this);
            var type = input.typedInput('type');
            var value = input.typedInput('value');
            var untouched = input.attr('data-default') === JSON.stringify({ value: value, type: type });
            if (untouched || ((type === 'str' || type === 'num' || type === 'enum') && String(value).trim() === '')) {
                delete out[input.attr('data-param')];
            } else {
                out[input.attr('data-param')] = { value: value, type: type };
            }
        });
        return out;
    }

    /** A field's default in the node type's definition (undefined when it has none). */
    function defaultOf(nodeType, key) {
        var def = RED.nodes.getType(nodeType);
        var spec = def && def.defaults && def.defaults[key];
        return spec ? spec.value : undefined;
    }

    /**
     * First call of every oneditprepare. A node that lacks a field (a flow written by hand, saved by an older
     * version, an imported example) shows the field's default, as a node dragged from the palette has it:
     * the runtime reads a missing field as that default, so opening and saving the dialog must not make it
     * something else (Node-RED fills a missing field with blank, an unticked box saved as false). Only the
     * dialog's fields are set (before the widgets read them); the node changes when the dialog is saved, so
     * Cancel leaves it as it was.
     */
    // The gateway configuration a node of this browser was last saved with, per config type: a new node from the
    // palette gets it (or the only one there is) instead of "none".
    var lastUsed = {};
    function configTypeOf(field) {
        var t = field && field.type ? RED.nodes.getType(field.type) : null;
        return t && t.category === 'config' ? field.type : null;
    }
    function rememberConfigs(node) {
        var def = node && node._def;
        if (!def || def.category === 'config' || !/^smsgw-/.test(node.type)) { return; }
        Object.keys(def.defaults || {}).forEach(function (key) {
            var type = configTypeOf(def.defaults[key]);
            if (!type || !node[key]) { return; }
            lastUsed[type] = node[key];
            try { window.localStorage.setItem('smsgw.lastConfig.' + type, node[key]); } catch (e) { void e; /* private mode */ }
        });
    }
    if (RED.events && RED.events.on) { RED.events.on('editor:save', rememberConfigs); }
    function chooseConfig(select, type) {
        var ids = select.find('option').map(function () { return $(this).val(); }).get()
            .filter(function (id) { return id && id !== '_ADD_' && RED.nodes.node(id); });
        var last = lastUsed[type];
        if (!last) { try { last = window.localStorage.getItem('smsgw.lastConfig.' + type); } catch (e) { void e; last = null; } }
        if (last && ids.indexOf(last) >= 0) { return last; }
        return ids.length === 1 ? ids[0] : null;
    }

    function defaults(node) {
        // Placeholders of blank fields, and the dialog's values for the field rules (resources/fields.js).
        if (window.smsgwFields) { window.smsgwFields.prepare(node); }
        current = node.type;
        var def = RED.nodes.getType(node.type) || {};
        var fields = def.defaults || {};
        var prefix = def.category === 'config' ? '#node-config-input-' : '#node-input-';
        Object.keys(fields).forEach(function (key) {
            // only where a configuration is required: an optional one left blank means something (none)
            var type = fields[key].required === true ? configTypeOf(fields[key]) : null;
            if (!type || node[key]) { return; }
            var select = $(prefix + key);
            var pick = select.is('select') ? chooseConfig(select, type) : null;
            if (pick) { select.val(pick).trigger('change'); }
        });
        Object.keys(fields).forEach(function (key) {
            var value = fields[key].value;
            if (node[key] !== undefined && node[key] !== null) { return; }
            // nothing to show: a config node reference, an object (parameter rows have no field of their own)
            if (value === undefined || value === null || fields[key].type || typeof value === 'object') { return; }
            var field = $(prefix + key);
            if (field.length === 0) { return; }
            if (field.attr('type') === 'checkbox') {
                field.prop('checked', value === true);
            } else {
                field.val(String(value));
            }
        });
    }

    function operationSelect(select, nodeType, current, onChange) {
        return catalogue().then(function (cat) {
            var ops = cat[nodeType] || [];
            select.empty();
            ops.forEach(function (op) {
                var name = op.key.split('/')[1];
                var service = op.key.split('/')[0];
                $('<option></option>').val(name).text(name + (service === 'legacy' ? ' (legacy)' : '')).attr('title', op.doc).appendTo(select);
            });
            // a node without an operation (written by hand) shows its type's default one
            select.val(current || defaultOf(nodeType, 'operation') || (ops[0] && ops[0].key.split('/')[1]));
            var find = function () {
                var v = select.val();
                return ops.filter(function (o) { return o.key.split('/')[1] === v; })[0];
            };
            select.off('change.smsgw').on('change.smsgw', function () { onChange(find()); });
            onChange(find());
            return cat;
        });
    }

    function analyze(body) {
        return $.ajax({ url: 'smsgw/analyze', type: 'POST', contentType: 'application/json', data: JSON.stringify(body) });
    }

    /**
     * Calls fn whenever a typedInput field's value changes while typing: the widget passes change and keyup on
     * to the field, but not the input event of its own box (a paste with the mouse, a drop).
     */
    function onTyping(field, fn) {
        field.on('change keyup', fn);
        field.next('.red-ui-typedInput-container').find('input.red-ui-typedInput-input').on('input', fn);
    }

    var SHARED = '@smsgw/node-red-sms-gateway/smsgw-config:smsgw-config.';

    function allows(type, n) {
        var vars = { type: type, count: n.toLocaleString() };
        return n === 1 ? RED._(SHARED + 'analysis.allowsOne', vars) : RED._(SHARED + 'analysis.allowsUpTo', vars);
    }

    /**
     * The segment counter under a send dialog's text: encoding and segments as you type and, when the dialog
     * knows operation and SMS type, a warning when the text is longer than that type takes with the selected
     * gateway configuration's limits (the check the node makes before sending). `read()` returns
     * { text } (undefined when the text comes from the msg) and { operation: "service/Name", smsType } when known;
     * { replace: true } when the node replaces GSM-7 look-alikes (the analysis is then of the replaced text, and
     * the replacements are listed); { cost: true } for the cost line, with { recipients } the fixed recipient
     * text when there is one. Returns the function to call when any of them changes.
     */
    function segmentCounter(info, read) {
        var timer = null;
        var asked = 0;
        /**
         * What the text costs: segments x recipients (counted by smsgw/analyze as the spending guard counts them)
         * against the guard of the selected gateway configuration: the window with the fewest units left (the
         * one that refuses first; the day's on a tie), no "left" part without a guard. Per recipient only while
         * the recipients come from the msg.
         */
        function costLine(info, segments, recipients, mine) {
            var line = $('<div class="smsgw-cost"></div>').appendTo(info);
            if (recipients === undefined) {
                line.text(RED._(SHARED + 'analysis.perRecipient', { count: segments }));
                return;
            }
            var base = {
                segments: RED._(SHARED + 'analysis.segments', { count: segments }),
                count: recipients, units: segments * recipients
            };
            // Written out, so every key the editor uses can be found in the catalogues.
            var keys = { day: 'analysis.cost_day', hour: 'analysis.cost_hour', month: 'analysis.cost_month' };
            var order = { day: 0, hour: 1, month: 2 };
            var show = function (windows) {
                if (mine !== asked) { return; }
                var tight = windows.filter(function (w) { return typeof w.limit === 'number' && keys[w.window] !== undefined; })
                    .sort(function (x, y) { return (x.limit - x.count) - (y.limit - y.count) || order[x.window] - order[y.window]; })[0];
                line.text(tight
                    ? RED._(SHARED + keys[tight.window], $.extend({ left: Math.max(0, tight.limit - tight.count) }, base))
                    : RED._(SHARED + 'analysis.cost', base));
            };
            var id = $('#node-input-gateway').val();
            if (!id || id === '_ADD_') { show([]); return; }
            $.getJSON('smsgw-config/' + encodeURIComponent(id) + '/budget').done(function (r) { show((r && r.windows) || []); })
                .fail(function () { show([]); });
        }
        return function () {
            clearTimeout(timer);
            var now = read();
            if (now.text === undefined) {
                info.attr('data-too-long', null).text(RED._(SHARED + 'analysis.dynamic'));
                return;
            }
            timer = setTimeout(function () {
                var body = { text: now.text };
                if (now.replace) { body.replace = true; }
                if (typeof now.recipients === 'string') { body.recipients = now.recipients; }
                if (now.operation) {
                    var cfg = RED.nodes.node($('#node-input-gateway').val()) || {};
                    body.operation = now.operation;
                    body.smsType = now.smsType;
                    body.segmentsSingle = cfg.segmentsSingle;
                    body.segmentsLong = cfg.segmentsLong;
                }
                var mine = ++asked;
                analyze(body).done(function (a) {
                    if (mine !== asked) { return; }
                    if (a.tooLarge) {
                        // Over the hard cap: not analysed, and the node refuses it at once.
                        info.empty().attr('data-too-long', 'true').append($('<div class="smsgw-too-long"></div>')
                            .css('color', 'var(--red-ui-text-color-error, #AD1625)')
                            .append('<i class="fa fa-exclamation-triangle"></i> ')
                            .append(document.createTextNode(RED._(SHARED + 'analysis.tooLarge', {
                                characters: a.tooLarge.characters.toLocaleString(), max: a.tooLarge.max.toLocaleString()
                            }))));
                        return;
                    }
                    info.empty().attr('data-too-long', a.tooLong ? 'true' : null)
                        .append($('<div></div>').text(RED._(SHARED + 'analysis.result', {
                            encoding: a.encoding,
                            segments: RED._(SHARED + 'analysis.segments', { count: a.segments }),
                            charactersLeft: RED._(SHARED + 'analysis.charactersLeft', { count: a.charactersLeft })
                        })));
                    if (a.replaced > 0 && a.swaps) {
                        // What the node replaces before sending, by what and where (positions from 1, as a person counts).
                        var swaps = a.swaps.map(function (w) {
                            return RED._(SHARED + 'analysis.swap', { char: w.char, with: w.with, at: w.at + 1 });
                        }).join(', ');
                        $('<div class="smsgw-replaced"></div>')
                            .text(RED._(SHARED + 'analysis.replaced', { count: a.replaced, swaps: swaps })).appendTo(info);
                    }
                    if (a.ucs2 && a.ucs2.length > 0) {
                        // Each character that forces UCS-2 with its position (from 1, as a person counts).
                        var which = a.ucs2.map(function (u) {
                            return RED._(SHARED + 'analysis.at', { char: u.char, at: u.at + 1 });
                        }).join(', ');
                        $('<div class="smsgw-ucs2"></div>').css('color', 'var(--red-ui-text-color-warning, #B8860B)')
                            .text(RED._(SHARED + 'analysis.ucs2', { chars: which, count: a.ucs2.length })).appendTo(info);
                    }
                    if (now.cost && a.segments > 0) { costLine(info, a.segments, a.recipients, mine); }
                    if (a.tooLong) {
                        var p = a.tooLong;
                        var text = RED._(SHARED + 'analysis.tooLong', {
                            characters: p.characters.toLocaleString(), segments: p.segments.toLocaleString(),
                            allows: allows(p.type, p.allowed) + (p.longer ? '; ' + allows(p.longer.type, p.longer.allowed) : '')
                        });
                        $('<div class="smsgw-too-long"></div>').css('color', 'var(--red-ui-text-color-error, #AD1625)')
                            .append('<i class="fa fa-exclamation-triangle"></i> ').append(document.createTextNode(text))
                            .appendTo(info);
                    }
                });
            }, 250);
        };
    }

    /**
     * Under the Recipient field of a send dialog: the numbers as the node will send them (international when
     * the selected gateway configuration has a default country) or, in the error colour, each entry the node
     * would refuse. Asks smsgw/recipients, the same check the node makes before sending. Empty while the
     * recipients come from the msg.
     */
    function recipientCheck() {
        var field = $('#node-input-recipient');
        var info = $('<div class="form-tips smsgw-recipients" style="display:none; margin:4px 0 0 104px; width:70%"></div>')
            .insertAfter(field.closest('.form-row').children().last());
        var timer = null;
        var asked = 0;
        function show() {
            clearTimeout(timer);
            var text = field.typedInput('type') === 'str' ? String(field.typedInput('value') || '') : '';
            if (text.trim() === '') { info.hide().attr('data-state', null); return; }
            timer = setTimeout(function () {
                var cfg = RED.nodes.node($('#node-input-gateway').val()) || {};
                var mine = ++asked;
                $.ajax({ url: 'smsgw/recipients', type: 'POST', contentType: 'application/json',
                    data: JSON.stringify({ recipients: text, defaultCountry: cfg.defaultCountry, checkRecipients: cfg.checkRecipients }) })
                    .done(function (r) {
                        if (mine !== asked) { return; }
                        var bad = r.entries.filter(function (e) { return e.problem; });
                        var changed = r.entries.some(function (e) { return e.number !== undefined && e.number !== e.input; });
                        info.empty().css('color', '');
                        if (r.tooLarge) {
                            info.attr('data-state', 'bad').css('color', 'var(--red-ui-text-color-error, #AD1625)')
                                .append('<i class="fa fa-exclamation-triangle"></i> ')
                                .append(document.createTextNode(RED._(SHARED + 'recipients.tooLarge', {
                                    characters: r.tooLarge.characters.toLocaleString(), max: r.tooLarge.max.toLocaleString()
                                }))).show();
                            return;
                        }
                        if (bad.length > 0) {
                            info.attr('data-state', 'bad').css('color', 'var(--red-ui-text-color-error, #AD1625)')
                                .append('<i class="fa fa-exclamation-triangle"></i> ')
                                .append(document.createTextNode(RED._(SHARED + 'recipients.bad', {
                                    entries: bad.map(function (e) { return '"' + e.input + '"'; }).join(', ')
                                }) + (r.country ? ' ' + RED._(SHARED + 'recipients.country', { country: r.country }) : '')));
                        } else if (changed) {
                            info.attr('data-state', 'normalised').text(RED._(SHARED + 'recipients.sentAs', {
                                numbers: r.entries.map(function (e) { return e.number; }).join(', ')
                            }));
                        } else {
                            info.attr('data-state', 'ok');
                        }
                        info.toggle(bad.length > 0 || changed);
                    });
            }, 250);
        }
        onTyping(field, show);
        $('#node-input-gateway').on('change', show);
        show();
    }

    // The node type whose dialog is open (defaults() is the first call of every oneditprepare).
    var current = null;

    // typedInput widgets for the dialog's fields, with the types their rules offer (resources/fields.js).
    function fields(ids) {
        ids.forEach(function (id) {
            var types = window.smsgwFields.types(current, id);
            typed(id, types.slice(), types[0]);
        });
    }

    // The Output property of an action node: the msg property that receives the result (as core's json node
    // edits its property). A node saved before the field existed shows msg.payload, which it writes.
    function output() {
        var field = $('#node-input-output');
        if (!field.val()) { field.val('payload'); }
        field.typedInput({ default: 'msg', types: ['msg'] });
    }

    // Dialog of a node with an operation picker and one row per parameter (customer, query jobs, legacy send).
    function operationPrepare(node, nodeType) {
        output();
        var container = $('#' + nodeType + '-params');
        var values = $.extend({}, node.params || {});
        var shown = false;
        operationSelect($('#node-input-operation'), nodeType, node.operation, function (op) {
            if (shown) { values = collectParams(container, values); }
            paramRows(container, op, values, nodeType);
            textCounter(container, op);
            shown = true;
        });
        node._smsgwCollect = function () { return shown ? collectParams(container, values) : node.params; };
    }

    // The segment counter of the send dialog under a text parameter's row (SMSText, Msg), while it is a text.
    var TEXT_PARAMS = ['SMSText', 'Msg'];
    // With the operation and a fixed SmsTyp it also warns when the text is longer than that type takes.
    function textCounter(container, op) {
        var row = function (name) { return container.find('input[data-param="' + name + '"]'); };
        var field = row(TEXT_PARAMS[0]).add(row(TEXT_PARAMS[1])).first();
        if (field.length === 0 || !op) { return; }
        var info = $('<div class="form-tips smsgw-text-analysis" style="margin:4px 0 0 104px; width:70%"></div>')
            .insertAfter(field.closest('.form-row'));
        var type = row('SmsTyp');
        var analyse = segmentCounter(info, function () {
            var now = { text: field.typedInput('type') === 'str' ? String(field.typedInput('value') || '') : undefined };
            var fixed = type.length === 0 || ['enum', 'str', 'num'].indexOf(type.typedInput('type')) >= 0;
            if (fixed) {
                now.operation = op.key;
                if (type.length > 0 && String(type.typedInput('value')).trim() !== '') { now.smsType = type.typedInput('value'); }
            }
            return now;
        });
        onTyping(field, analyse);
        if (type.length > 0) { type.on('change', analyse); }
        $('#node-input-gateway').off('change.smsgwText').on('change.smsgwText', analyse);
        analyse();
    }

    function operationSave(node) {
        if (node._smsgwCollect) { node.params = node._smsgwCollect(); }
        delete node._smsgwCollect;
    }

    function operationCancel(node) {
        delete node._smsgwCollect;
    }

    // Dialog of a poller (inbound, delivery reports, HLR results): context store list and poll-on-input switch.
    function pollerPrepare(node) {
        var stores = ((RED.settings.context || {}).stores || []);
        var storeSelect = $('#node-input-store');
        stores.forEach(function (name) {
            if (name !== '') { $('<option>').val(name).text(name).appendTo(storeSelect); }
        });
        if (node.store && stores.indexOf(node.store) < 0) {
            $('<option>').val(node.store).text(node.store).appendTo(storeSelect);
        }
        storeSelect.val(node.store || '');
        $('#smsgw-poll-on-input').prop('checked', Number(node.inputs) === 1).on('change', function () {
            $('#smsgw-poll-interval-row').toggle(!$(this).is(':checked'));
        }).trigger('change');
    }

    function pollerSave(node) {
        node.inputs = $('#smsgw-poll-on-input').is(':checked') ? 1 : 0;
    }

    // The account of a gateway configuration: without user or password it shows the warning
    // triangle, and so do the nodes using it. What this editor knows comes first (credentials typed, loaded by
    // a dialog or imported); else the runtime says, for each deployed configuration, whether it has both (yes or
    // no, never the values); a configuration it does not know was never deployed and has none. Until the runtime
    // answered (or when it may not be asked) nothing is guessed: no triangle.
    var accounts = null;
    var editing = {};

    function revalidateConfigs() {
        if (!RED.editor || typeof RED.editor.validateNode !== 'function') { return; }
        RED.nodes.eachConfig(function (n) {
            if (n.type !== 'smsgw-config') { return; }
            RED.editor.validateNode(n);
            (n.users || []).forEach(function (u) { RED.editor.validateNode(u); });
        });
        if (RED.view && RED.view.redraw) { RED.view.redraw(true); }
    }

    function loadAccounts() {
        $.getJSON('smsgw/accounts').done(function (r) {
            accounts = r && typeof r === 'object' ? r : {};
            revalidateConfigs();
        });
    }
    if (RED.events && RED.events.on) { RED.events.on('deploy', loadAccounts); }
    loadAccounts();

    /** A validator's answer for a config node: true, or why it is not usable (the triangle's text). */
    function accountProblem(node) {
        // While its dialog is open the User and Password fields show it (required); the triangle follows on Done.
        if (editing[node.id]) { return true; }
        var c = node.credentials;
        var ok;
        if (c && (c.user !== undefined || c.password !== undefined || c.has_password !== undefined)) {
            ok = typeof c.user === 'string' && c.user.trim() !== '' &&
                (c.has_password === true || (typeof c.password === 'string' && c.password !== ''));
        } else if (accounts === null) {
            return true;
        } else {
            ok = accounts[node.id] === true;
        }
        return ok ? true : RED._(SHARED + 'errors.noAccount');
    }

    function accountEditing(node, on) {
        if (on) { editing[node.id] = true; } else { delete editing[node.id]; }
    }

    return { defaults: defaults, catalogue: catalogue, accountProblem: accountProblem, accountEditing: accountEditing, typed: typed, typesFor: typesFor, paramRows: paramRows,
        collectParams: collectParams, operationSelect: operationSelect, analyze: analyze, COMMON: COMMON,
        segmentCounter: segmentCounter, onTyping: onTyping, recipientCheck: recipientCheck,
        fields: fields, output: output, operationPrepare: operationPrepare, operationSave: operationSave,
        operationCancel: operationCancel, pollerPrepare: pollerPrepare, pollerSave: pollerSave };
})();
